"""The composition root: the Qt application and its loop (:mod:`.root`), the providers,
keys and recovery shared with the command line (:mod:`.wiring`), and the store ikgui is
told to open (:mod:`.store`). Nothing imports this package but ``ikgui.__main__`` and the
front ends that it assembles (the window, the command line: :mod:`.wiring` and
:mod:`.store` only).
"""
