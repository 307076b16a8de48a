"""The transcript: the scrollback of the open conversation, how each item looks, the
Markdown renderer, the render budget for huge replies and the reply viewer."""
