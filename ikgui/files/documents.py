"""An attached PDF read with pypdf: refused when it is protected by a password, damaged
or too long, and its text extracted (what search indexes and what a model that cannot
read a PDF receives, headed by the file's name).

pypdf is pure Python: a damaged or hostile file raises anything from its own errors to
``RecursionError``; each becomes one line naming the file. Called in a worker thread.
"""

from __future__ import annotations

import io
import logging

from ikgui.domain.attachments import AttachmentError

#: The most pages an attached PDF may have (Anthropic reads at most 100 of them in one
#: document block; extracting 1,000 pages of text takes a worker thread a minute).
MAX_PAGES = 1000
#: The most extracted text kept (characters): more is cut, saying so.
MAX_TEXT = 4_000_000


def pdf_text(name: str, content: bytes) -> str:
    """The text of the PDF ``content`` (``""`` for scanned pages with no text layer);
    raises :class:`AttachmentError` (one line naming ``name``)."""
    # pypdf logs each oddity of a damaged file as a warning: ikgui says it in one line.
    logging.getLogger("pypdf").setLevel(logging.ERROR)
    from pypdf import PdfReader
    from pypdf.errors import DependencyError, FileNotDecryptedError

    damaged = AttachmentError(f"{name} is a damaged PDF: it cannot be read")
    try:
        reader = PdfReader(io.BytesIO(content))
        # An empty user password only restricts printing or copying: readable.
        if reader.is_encrypted and not reader.decrypt(""):
            raise FileNotDecryptedError
        pages = len(reader.pages)
    except (FileNotDecryptedError, DependencyError, NotImplementedError):
        raise AttachmentError(
            f"{name} is protected by a password: save a copy without it and attach that"
        ) from None
    except Exception:  # pypdf's own errors and whatever a hostile file provokes
        raise damaged from None
    if pages > MAX_PAGES:
        raise AttachmentError(f"{name} has {pages:,} pages: PDFs may have at most {MAX_PAGES:,}")
    if pages == 0:
        raise AttachmentError(f"{name} is a PDF without pages")
    parts: list[str] = []
    held = 0
    for page in reader.pages:
        try:
            text = page.extract_text() or ""
        except Exception:  # one unreadable page: its text is left out, not the file
            text = ""
        parts.append(text)
        held += len(text)
        if held > MAX_TEXT:
            break
    text = "\n\n".join(p.strip() for p in parts if p.strip())
    return text[:MAX_TEXT]
