"""The session and its operations: the open conversation (the one place its state
changes, :mod:`.open_conversation`), sending and streaming replies (:mod:`.sender`,
:mod:`.reply`), writes and the queue of refused ones, other processes' rows, crash
recovery, and the library bound to the open conversation.
"""
