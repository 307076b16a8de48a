"""Configuration: ``config.toml`` read safely (:mod:`.file`), loaded into settings
(:mod:`.loading`), edited in place by the Settings dialog (:mod:`.saving`), its
``[storage]`` table (:mod:`.storage`) and the store it chooses (:mod:`.target`).
"""
