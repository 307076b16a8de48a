"""The files a message is sent with (SPEC §13): checked before anything is written.

A file comes as a :class:`StoredFile` (read and checked by ``ikgui.files`` in a worker
thread: stored with the ``user`` event, once per hash, in one transaction) or as its
:class:`Attachment` alone (already stored: an image pasted into the draft, the files a
retried or edited message keeps), which must be in the store.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ikgui.domain.attachments import Attachment, AttachmentError, StoredFile, size_text
from ikgui.domain.session.open_conversation import OpenConversation


def message_files(
    current: OpenConversation, files: Sequence[StoredFile | Attachment]
) -> tuple[tuple[StoredFile, ...], dict[str, Any] | None]:
    """The files to store with the message and its event's data (``None``: no files);
    raises :class:`AttachmentError` for the first file that cannot be sent."""
    if not files:
        return (), None
    limit_mb = current.settings.attachment_mb
    stored: dict[str, StoredFile] = {}
    listed: list[Attachment] = []
    for file in files:
        attachment = file.attachment if isinstance(file, StoredFile) else file
        if attachment.size > limit_mb * 1024 * 1024:
            raise AttachmentError(
                f"{attachment.name} is {size_text(attachment.size)}: "
                f"files may be at most {limit_mb} MB"
            )
        if isinstance(file, StoredFile):
            stored.setdefault(file.sha256, file)
        listed.append(attachment)
    kept = [a.sha256 for a in listed if a.sha256 not in stored]
    missing = set(kept) - current.store.has_files(kept) if kept else set()
    for attachment in listed:
        if attachment.sha256 in missing:
            raise AttachmentError(f"{attachment.name} is no longer stored: attach it again")
    return tuple(stored.values()), {"attachments": [a.data() for a in listed]}
