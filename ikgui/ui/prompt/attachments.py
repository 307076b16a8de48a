"""The files attached to the message being written (SPEC §13): one chip each above the
prompt editor — a thumbnail for an image (a type mark for other files), the file's name
and size, and a button that removes it. Everything on a chip is plain text: a file's
name comes from the user's disk or clipboard, never read as rich text."""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import QSize, Qt, Signal
from PySide6.QtGui import QImage, QPixmap
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QSizePolicy,
    QToolButton,
    QWidget,
)

from ikgui.domain.attachments import PDF, DraftFile, is_image, size_text
from ikgui.ui.plain import line, make_plain, tooltip

#: A chip's thumbnail, in pixels (square; the image is fitted inside it).
CHIP_THUMB = 32
#: The longest name a chip shows whole (longer ones are elided in the middle).
NAME_CHARS = 28


def type_mark(mime: str) -> str:
    """The short mark a chip shows in place of a thumbnail."""
    if mime == PDF:
        return "PDF"
    if is_image(mime):
        return "IMG"
    return "TXT"


def short_name(name: str) -> str:
    if len(name) <= NAME_CHARS:
        return name
    half = (NAME_CHARS - 1) // 2
    return f"{name[:half]}…{name[-half:]}"


class AttachmentChip(QFrame):
    """One attached file (objectName ``attachmentChip``)."""

    remove_requested = Signal(str)  # the file's sha256

    def __init__(self, file: DraftFile, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.file = file
        attachment = file.attachment
        self.setObjectName("attachmentChip")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.setAccessibleName(f"Attached: {attachment.name}, {size_text(attachment.size)}")
        self.setToolTip(tooltip(attachment.name))
        row = QHBoxLayout(self)
        row.setContentsMargins(4, 3, 3, 3)
        row.setSpacing(6)
        self.thumb = make_plain(QLabel(type_mark(attachment.mime)))
        self.thumb.setObjectName("attachmentThumbnail")
        self.thumb.setFixedSize(CHIP_THUMB, CHIP_THUMB)
        self.thumb.setAlignment(Qt.AlignmentFlag.AlignCenter)
        row.addWidget(self.thumb)
        self.name = make_plain(QLabel(short_name(line(attachment.name))))
        self.name.setObjectName("attachmentChipName")
        row.addWidget(self.name)
        self.size_label = make_plain(QLabel(size_text(attachment.size)))
        self.size_label.setObjectName("attachmentChipSize")
        self.size_label.setEnabled(False)  # (dimmed: the name matters more)
        row.addWidget(self.size_label)
        self.remove = QToolButton(self)
        self.remove.setObjectName("attachmentRemove")
        self.remove.setText("×")
        self.remove.setAutoRaise(True)
        self.remove.setAccessibleName(f"Remove {attachment.name}")
        self.remove.setToolTip(tooltip(f"Remove {attachment.name} from the message"))
        self.remove.clicked.connect(lambda: self.remove_requested.emit(attachment.sha256))
        row.addWidget(self.remove)

    def set_thumbnail(self, image: QImage) -> None:
        """The image's thumbnail (scaled off the window's thread already, or here once)."""
        if image.isNull():
            return
        if image.width() > CHIP_THUMB or image.height() > CHIP_THUMB:
            image = image.scaled(
                QSize(CHIP_THUMB, CHIP_THUMB),
                Qt.AspectRatioMode.KeepAspectRatio,
                Qt.TransformationMode.SmoothTransformation,
            )
        self.thumb.setPixmap(QPixmap.fromImage(image))


class AttachmentChips(QWidget):
    """The chips of the draft's files (hidden while there are none)."""

    remove_requested = Signal(str)  # the file's sha256

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("attachmentChips")
        self.setAccessibleName("Attached files")
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self._row = QHBoxLayout(self)
        self._row.setContentsMargins(8, 0, 8, 0)
        self._row.setSpacing(6)
        self._row.addStretch(1)
        self.chips: list[AttachmentChip] = []
        self.hide()

    def show_files(self, files: Sequence[DraftFile]) -> None:
        """Show ``files`` (the chips of files still listed keep their thumbnails)."""
        kept = {chip.file.attachment.sha256: chip for chip in self.chips}
        wanted = [f.attachment.sha256 for f in files]
        for old in self.chips:
            if old.file.attachment.sha256 not in wanted:
                self._row.removeWidget(old)
                old.deleteLater()
        self.chips = []
        for index, file in enumerate(files):
            chip = kept.get(file.attachment.sha256) or self._chip(file)
            self._row.removeWidget(chip)
            self._row.insertWidget(index, chip)
            self.chips.append(chip)
        self.setVisible(bool(self.chips))

    def _chip(self, file: DraftFile) -> AttachmentChip:
        chip = AttachmentChip(file, self)
        chip.remove_requested.connect(self.remove_requested)
        return chip

    def set_thumbnail(self, sha256: str, image: QImage) -> None:
        for chip in self.chips:
            if chip.file.attachment.sha256 == sha256:
                chip.set_thumbnail(image)
