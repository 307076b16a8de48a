"""The ``ikgui`` command line (SPEC §9): its grammar (:mod:`.parser`), what every command
needs (:mod:`.env`), the commands (:mod:`.main`, :mod:`.run`, :mod:`.view`, :mod:`.db`)
and everything it prints (:mod:`.output`).
"""
