"""A folder's settings page (SPEC §15, ``folderSettings``): the agent, provider, model,
system prompt, tools and files a new conversation started in the folder takes. OK hands
the settings (and the files read for it) to the window, which keeps them through the
session; a page that sets nothing removes the project."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from ikgui.domain.attachments import Attachment, StoredFile, size_text
from ikgui.domain.errors import IkguiError
from ikgui.domain.folders import Project
from ikgui.ui.plain import line, make_plain
from ikgui.ui.settings.drafts import tools_text, tools_value

#: The choice meaning "not set" in the agent and provider boxes.
_UNSET = "(the usual default)"


def _combo(name: str, spoken: str, choices: Sequence[str], current: str | None) -> QComboBox:
    combo = QComboBox()
    combo.setObjectName(name)
    combo.setAccessibleName(spoken)
    combo.addItem(_UNSET, None)
    for choice in choices:
        combo.addItem(line(choice), choice)
    if current is not None and combo.findData(current) < 0:
        combo.addItem(line(current), current)  # set elsewhere, not known here: kept
    combo.setCurrentIndex(max(0, combo.findData(current)) if current is not None else 0)
    return combo


class ProjectSettingsDialog(QDialog):
    """The page; ``accepted_settings`` carries the project and the files read for it."""

    accepted_settings = Signal(object, list)  # Project, list[StoredFile] newly read

    def __init__(
        self,
        project: Project,
        agents: Sequence[str],
        providers: Sequence[str],
        read_file: Callable[[str], StoredFile],
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("folderSettings")
        self.setWindowTitle(f"Project settings — {line(project.folder)}")
        self.setAccessibleName(f"Project settings of the folder {line(project.folder)}")
        self.project = project
        self._read = read_file
        self.read: list[StoredFile] = []
        intro = make_plain(
            QLabel(
                f"New conversations started in “{line(project.folder)}” (or a folder "
                "inside it) are tagged with it and take these settings. The system prompt "
                "is read at each request: edit it once, every conversation here follows."
            )
        )
        intro.setWordWrap(True)
        self._build_fields(project, agents, providers)
        self.files_list = QListWidget()
        self.files_list.setObjectName("projectFiles")
        self.files_list.setAccessibleName("Files sent with the first message")
        for attachment in project.files:
            self._add_row(attachment)
        add = QPushButton("Add files…")
        add.setObjectName("projectAddFiles")
        add.clicked.connect(self._ask_files)
        remove = QPushButton("Remove")
        remove.setObjectName("projectRemoveFile")
        remove.clicked.connect(self._remove_file)
        self.error_label = make_plain(QLabel())
        self.error_label.setObjectName("projectError")
        self.error_label.hide()
        self._lay_out(intro, add, remove)

    def _lay_out(self, intro: QLabel, add: QPushButton, remove: QPushButton) -> None:
        form = QFormLayout()
        form.addRow("&Agent:", self.agent_combo)
        form.addRow("&Provider:", self.provider_combo)
        form.addRow("&Model:", self.model_edit)
        form.addRow("&System prompt:", self.prompt_edit)
        form.addRow("&Tools:", self.tools_edit)
        buttons_row = QHBoxLayout()
        buttons_row.addWidget(add)
        buttons_row.addWidget(remove)
        buttons_row.addStretch(1)
        files = QVBoxLayout()
        files.addWidget(self.files_list)
        files.addLayout(buttons_row)
        files_label = QLabel("&Files:")
        files_label.setBuddy(self.files_list)  # (a row of a layout gets no buddy itself)
        form.addRow(files_label, files)
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        buttons.accepted.connect(self._accept)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(intro)
        layout.addLayout(form)
        layout.addWidget(self.error_label)
        layout.addWidget(buttons)
        self.resize(520, 520)

    def _build_fields(
        self, project: Project, agents: Sequence[str], providers: Sequence[str]
    ) -> None:
        self.agent_combo = _combo("projectAgent", "Agent", agents, project.agent)
        self.provider_combo = _combo("projectProvider", "Provider", providers, project.provider)
        self.model_edit = QLineEdit(project.model or "")
        self.model_edit.setObjectName("projectModel")
        self.model_edit.setAccessibleName("Model")
        self.model_edit.setPlaceholderText("the agent's or provider's model")
        self.prompt_edit = QPlainTextEdit(project.system_prompt or "")
        self.prompt_edit.setObjectName("projectSystemPrompt")
        self.prompt_edit.setAccessibleName("System prompt")
        self.prompt_edit.setPlaceholderText("Instructions for every conversation in this project")
        self.prompt_edit.setTabChangesFocus(True)
        self.tools_edit = QLineEdit(tools_text(project.tools))
        self.tools_edit.setObjectName("projectTools")
        self.tools_edit.setAccessibleName("Tools")
        self.tools_edit.setPlaceholderText("server or server.tool names; empty: the agent's")

    def _add_row(self, attachment: Attachment) -> None:
        item = QListWidgetItem(f"{line(attachment.name)} ({size_text(attachment.size)})")
        item.setData(Qt.ItemDataRole.UserRole, attachment)
        self.files_list.addItem(item)

    def files(self) -> tuple[Attachment, ...]:
        """The files listed now, in order."""
        rows = (self.files_list.item(i) for i in range(self.files_list.count()))
        return tuple(r.data(Qt.ItemDataRole.UserRole) for r in rows if r is not None)

    def _ask_files(self) -> None:
        dialog = QFileDialog(self, "Files for every new conversation in this project")
        dialog.setFileMode(QFileDialog.FileMode.ExistingFiles)
        dialog.filesSelected.connect(self.add_files)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.open()

    def add_files(self, paths: Sequence[str]) -> None:
        """Read ``paths`` (each checked as an attachment is) and list them."""
        have = {a.sha256 for a in self.files()}
        for path in paths:
            try:
                stored = self._read(path)
            except (IkguiError, OSError) as exc:
                self.error_label.setText(line(str(exc)))
                self.error_label.show()
                continue
            if stored.sha256 not in have:
                have.add(stored.sha256)
                self.read.append(stored)
                self._add_row(stored.attachment)

    def _remove_file(self) -> None:
        row = self.files_list.currentRow()
        if row >= 0:
            self.files_list.takeItem(row)

    def settings(self) -> Project:
        """The project as the page shows it."""
        prompt = self.prompt_edit.toPlainText()
        return Project(
            self.project.folder,
            agent=self.agent_combo.currentData(),
            provider=self.provider_combo.currentData(),
            model=self.model_edit.text().strip() or None,
            system_prompt=prompt if prompt.strip() else None,
            tools=tools_value(self.tools_edit.text()),
            files=self.files(),
        )

    def _accept(self) -> None:
        kept = {a.sha256 for a in self.files()}
        self.accepted_settings.emit(self.settings(), [f for f in self.read if f.sha256 in kept])
        self.accept()
