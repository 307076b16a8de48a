"""The main window's parts beside its layout: toolbar actions, the commands they and the
other widgets run, the chrome (status bar, title, enabled actions), drafts and polling,
dialogs and the read-only policy."""
