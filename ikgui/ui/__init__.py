"""The PySide6 window (SPEC §10); the only layer that imports Qt and qasync.

Its parts: ``sidebar/`` (the conversation list), ``transcript/`` (the scrollback and
what renders replies), ``prompt/`` (the prompt editor and the working-prompt panel),
``settings/`` (the Settings dialog's pages) and ``window/`` (the main window's
commands, chrome, drafts, dialogs and read-only policy); shared pieces (the loop,
style, icons, plain-text helpers, the first paint) stay at this level."""
