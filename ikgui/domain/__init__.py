"""The Qt-free heart of ikgui: events, replay, commands, context and the session.

Nothing in this package imports PySide6, qasync, peewee, httpx or keyring; the
adapters (``ikgui.storage``, ``ikgui.providers``, ``ikgui.ui``) implement the ports
declared in :mod:`ikgui.domain.ports`.
"""
