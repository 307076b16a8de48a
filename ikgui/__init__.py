"""ikgui: a desktop workbench for conversations with language models."""

__version__ = "0.1.0"
