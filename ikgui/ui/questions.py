"""Questions the window asks (a label, where to save, which folder, are you sure) without
stopping anything while they wait for an answer.

A static ``QInputDialog.getText`` or a ``dialog.exec()`` runs a second Qt event loop
until the user answers. Called from a coroutine (or a slot a coroutine's step ran), that
step cannot end while the dialog is open, so qasync runs no other task: a reply
streaming meanwhile stands still, and may fail with "Cannot enter into task" when Qt
delivers its data. These dialogs are window-modal and ``open()``-ed instead (randovania's
async dialogs are the model): the call returns at once and the answer comes to a
callback, or to whoever awaits :func:`answered`.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialog, QFileDialog, QInputDialog, QMessageBox, QWidget

#: Where the window's questions put their dialog, for tests and the bug dialog: the one
#: open now (``None`` once answered).
OBJECT_NAME = "windowQuestion"


def _opened(dialog: QDialog, name: str = OBJECT_NAME) -> QDialog:
    dialog.setObjectName(name)
    dialog.setWindowModality(Qt.WindowModality.WindowModal)
    dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    dialog.open()
    return dialog


def ask_text(
    parent: QWidget, title: str, label: str, text: str, then: Callable[[str], object]
) -> QDialog:
    """Ask for a line (several lines when ``text`` has them); ``then(value)`` on OK only."""
    dialog = QInputDialog(parent)
    dialog.setWindowTitle(title)
    dialog.setLabelText(label)
    if "\n" in text:
        dialog.setOption(QInputDialog.InputDialogOption.UsePlainTextEditForTextInput)
    dialog.setTextValue(text)
    dialog.textValueSelected.connect(then)
    return _opened(dialog)


def ask_save_path(
    parent: QWidget, caption: str, start: Path, filters: str, then: Callable[[Path], object]
) -> QDialog:
    """Ask where to save, starting at ``start`` (a folder and a file name); ``then(path)``
    once one is chosen."""
    dialog = QFileDialog(parent, caption, str(start), filters)
    dialog.setAcceptMode(QFileDialog.AcceptMode.AcceptSave)
    dialog.setFileMode(QFileDialog.FileMode.AnyFile)
    dialog.fileSelected.connect(lambda name: then(Path(name)) if name else None)
    return _opened(dialog)


def ask_open_paths(
    parent: QWidget, caption: str, start: Path, filters: str, then: Callable[[list[str]], object]
) -> QDialog:
    """Ask for existing files to open; ``then(paths)`` once some are chosen."""
    dialog = QFileDialog(parent, caption, str(start), filters)
    dialog.setAcceptMode(QFileDialog.AcceptMode.AcceptOpen)
    dialog.setFileMode(QFileDialog.FileMode.ExistingFiles)
    dialog.filesSelected.connect(lambda names: then(list(names)) if names else None)
    return _opened(dialog)


def ask_folder(
    parent: QWidget, caption: str, start: Path, then: Callable[[Path], object]
) -> QDialog:
    """Ask for an existing folder; ``then(folder)`` once one is chosen."""
    dialog = QFileDialog(parent, caption, str(start))
    dialog.setFileMode(QFileDialog.FileMode.Directory)
    dialog.setOption(QFileDialog.Option.ShowDirsOnly, True)
    dialog.fileSelected.connect(lambda name: then(Path(name)) if name else None)
    return _opened(dialog)


def confirm(box: QMessageBox, yes: object, then: Callable[[], object]) -> QDialog:
    """Show ``box`` (built by the caller, plain text); ``then()`` if the button ``yes``
    was clicked."""
    box.finished.connect(lambda _result: then() if box.clickedButton() is yes else None)
    return _opened(box, box.objectName() or OBJECT_NAME)


async def answered(dialog: QDialog) -> int:
    """Show ``dialog`` and wait for it to close, letting the loop run meanwhile (never
    ``exec()``: see the module's docstring). Returns its result code."""
    done: asyncio.Future[int] = asyncio.get_running_loop().create_future()

    def finished(result: int) -> None:
        if not done.done():
            done.set_result(result)

    dialog.finished.connect(finished)
    if dialog.parent() is None:
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.open()  # (application-modal: no window to be modal to)
    else:
        _opened(dialog, dialog.objectName() or OBJECT_NAME)
    return await done
