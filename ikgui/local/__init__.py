"""What ikgui keeps on this machine outside the database: where its files are
(:mod:`.paths`), API keys in the OS keyring (:mod:`.keys`), the log file (:mod:`.log`)
and the recovery files of writes the database refused (:mod:`.recovery`).
"""
