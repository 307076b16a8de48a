"""A conversation's state: the event log folded (:mod:`.replay`), what the views count
(:mod:`.tally`), the context the model receives, the transcript, branches, the working
prompt, and the values the session announces (:mod:`.changes`, :mod:`.facts`).
"""
