"""The first-run state: what to know in a minute, and two ways to start."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QFrame,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from ikgui.ui.icons import set_icon

TIPS = [
    (
        "send",
        "Send",
        "Type below and press Enter. Replies stream in as they are written; Escape stops "
        "one and keeps what arrived. Nothing you type or read is ever lost.",
    ),
    (
        "mark",
        "Mark and rewind",
        "Mark (Ctrl+M) checkpoints what the model remembers; Rewind rolls its memory back "
        "to a mark when a path leads nowhere. The transcript keeps everything.",
    ),
    (
        "fork",
        "Fork",
        "Fork (Ctrl+B) splits the conversation into a branch: try another direction and "
        "keep this one. Branches sit under their parent on the left.",
    ),
]


class WelcomePanel(QFrame):
    setup_requested = Signal()
    demo_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("welcomePanel")
        self.setAccessibleName("Welcome")
        outer = QVBoxLayout(self)
        outer.setContentsMargins(48, 36, 48, 36)
        outer.addStretch(1)
        title = QLabel("Welcome to ikgui")
        title.setObjectName("welcomeTitle")
        font = title.font()
        font.setPointSizeF(font.pointSizeF() * 1.6)
        font.setBold(True)
        title.setFont(font)
        outer.addWidget(title)
        lead = QLabel("A workbench for conversations with language models. Three things to know:")
        lead.setWordWrap(True)
        outer.addWidget(lead)
        grid = QGridLayout()
        grid.setHorizontalSpacing(14)
        grid.setVerticalSpacing(14)
        for row, (icon_name, heading, text) in enumerate(TIPS):
            badge = QPushButton()
            badge.setFlat(True)
            badge.setEnabled(False)
            badge.setFocusPolicy(Qt.FocusPolicy.NoFocus)
            badge.setAccessibleName(f"{heading} icon")
            set_icon(badge, icon_name)
            grid.addWidget(badge, row, 0, Qt.AlignmentFlag.AlignTop)
            label = QLabel(f"<b>{heading}</b><br>{text}")
            label.setWordWrap(True)
            label.setTextFormat(Qt.TextFormat.RichText)
            grid.addWidget(label, row, 1)
        grid.setColumnStretch(1, 1)
        outer.addSpacing(8)
        outer.addLayout(grid)
        outer.addSpacing(16)
        buttons = QHBoxLayout()
        self.setup_button = QPushButton("Set up a provider")
        self.setup_button.setObjectName("setupProviderButton")
        self.setup_button.setDefault(True)
        self.setup_button.setToolTip("Ollama, an OpenAI-compatible server, or Anthropic")
        self.demo_button = QPushButton("Open a demo")
        self.demo_button.setObjectName("openDemoButton")
        self.demo_button.setToolTip("A read-only sample with forks, marks, tags and notices")
        set_icon(self.setup_button, "settings", on_accent=True)
        set_icon(self.demo_button, "context")
        buttons.addWidget(self.setup_button)
        buttons.addWidget(self.demo_button)
        buttons.addStretch(1)
        outer.addLayout(buttons)
        outer.addStretch(2)
        self.setup_button.clicked.connect(self.setup_requested)
        self.demo_button.clicked.connect(self.demo_requested)
