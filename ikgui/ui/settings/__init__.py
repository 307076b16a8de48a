"""The Settings dialog and its pages (providers, agents, prices, general); loaded on
first use, not at start-up."""
