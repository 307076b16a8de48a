"""The viewer of an attached image (objectName ``attachmentViewer``): the picture fitted
to the window (or zoomed), and Save As. The picture is decoded off the window's thread
by whoever opens the viewer, and handed over with :meth:`AttachmentViewer.show_image`."""

from __future__ import annotations

from PySide6.QtCore import QSize, Qt, Signal
from PySide6.QtGui import QImage, QKeySequence, QPixmap, QResizeEvent, QShortcut
from PySide6.QtWidgets import (
    QDialog,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from ikgui.domain.attachments import Attachment, size_text
from ikgui.ui.plain import make_plain, window_title

#: Zoom steps (a factor of the picture's own size).
ZOOM_STEP = 1.25
ZOOM_MIN, ZOOM_MAX = 0.05, 8.0


class AttachmentViewer(QDialog):
    save_requested = Signal()

    def __init__(self, attachment: Attachment, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.attachment = attachment
        self.setObjectName("attachmentViewer")
        self.setWindowTitle(window_title(f"{attachment.name} — {size_text(attachment.size)}"))
        self.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self.image = QImage()
        #: ``None``: fitted to the window; else the zoom factor.
        self.zoom: float | None = None
        self.picture = make_plain(QLabel("Loading…"))
        self.picture.setObjectName("attachmentPicture")
        self.picture.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.area = QScrollArea(self)
        self.area.setWidget(self.picture)
        self.area.setWidgetResizable(True)
        self.area.setAlignment(Qt.AlignmentFlag.AlignCenter)
        buttons = QHBoxLayout()
        self.fit_button = self._button("Fit", "viewerFit", self.fit)
        self.actual_button = self._button("100%", "viewerActual", lambda: self.set_zoom(1.0))
        self.zoom_out_button = self._button("−", "viewerZoomOut", lambda: self.step(-1))
        self.zoom_in_button = self._button("+", "viewerZoomIn", lambda: self.step(1))
        self.zoom_out_button.setAccessibleName("Zoom out")
        self.zoom_in_button.setAccessibleName("Zoom in")
        self.save_button = self._button("Save As…", "viewerSave", self.save_requested.emit)
        for button in (self.fit_button, self.actual_button, self.zoom_out_button):
            buttons.addWidget(button)
        buttons.addWidget(self.zoom_in_button)
        buttons.addStretch(1)
        buttons.addWidget(self.save_button)
        column = QVBoxLayout(self)
        column.addWidget(self.area, 1)
        column.addLayout(buttons)
        QShortcut(QKeySequence.StandardKey.ZoomIn, self, lambda: self.step(1))
        QShortcut(QKeySequence.StandardKey.ZoomOut, self, lambda: self.step(-1))
        QShortcut(QKeySequence.StandardKey.Save, self, self.save_requested.emit)
        self.resize(900, 680)

    def _button(self, text: str, name: str, then: object) -> QPushButton:
        button = QPushButton(text, self)
        button.setObjectName(name)
        button.setAutoDefault(False)
        button.clicked.connect(then)
        return button

    def show_image(self, image: QImage) -> None:
        """The decoded picture (a null one: it cannot be shown, and says so)."""
        self.image = image
        if image.isNull():
            self.picture.setText("This image cannot be shown (it may be damaged or too large).")
            for button in (self.fit_button, self.actual_button):
                button.setEnabled(False)
            self.zoom_in_button.setEnabled(False)
            self.zoom_out_button.setEnabled(False)
            return
        self._draw()

    def fit(self) -> None:
        self.zoom = None
        self._draw()

    def set_zoom(self, factor: float) -> None:
        self.zoom = max(ZOOM_MIN, min(ZOOM_MAX, factor))
        self._draw()

    def step(self, direction: int) -> None:
        self.set_zoom(self.shown_factor() * (ZOOM_STEP if direction > 0 else 1 / ZOOM_STEP))

    def shown_factor(self) -> float:
        """The factor the picture is drawn at now."""
        if self.image.isNull():
            return 1.0
        if self.zoom is not None:
            return self.zoom
        room = self.area.viewport().size()
        size = self.image.size()
        return min(1.0, room.width() / max(1, size.width()), room.height() / max(1, size.height()))

    def _draw(self) -> None:
        if self.image.isNull():
            return
        factor = self.shown_factor()
        size = QSize(
            max(1, round(self.image.width() * factor)), max(1, round(self.image.height() * factor))
        )
        scaled = self.image.scaled(
            size, Qt.AspectRatioMode.KeepAspectRatio, Qt.TransformationMode.SmoothTransformation
        )
        self.picture.setPixmap(QPixmap.fromImage(scaled))

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        if self.zoom is None:
            self._draw()
