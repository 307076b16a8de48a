"""The window's non-modal dialogs: Settings (saving applies the new settings and checks
the model server again) and the context viewer. Their modules load on first use."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QWidget

from ikgui.domain.settings import Settings

if TYPE_CHECKING:
    from ikgui.domain.session.session import Session
    from ikgui.ui.transcript.scrollback import ScrollbackView
    from ikgui.ui.window.model_lists import ModelLists
    from ikgui.ui.window.services import WindowServices


@dataclass(frozen=True)
class DialogParts:
    """What the dialogs read and tell (the wiring module hands it over)."""

    session: Session
    services: WindowServices
    #: The dialogs' parent (the window, as a plain widget).
    parent: QWidget
    model_lists: ModelLists
    scrollback: ScrollbackView
    #: Redraw the chrome (the settings changed).
    redraw: Callable[[], None]
    #: Take down the start-up banners (the settings changed) and check the server again.
    settings_saved: Callable[[], None]
    open_conversation: Callable[[str], None]


class WindowDialogs:
    def __init__(self, parts: DialogParts) -> None:
        self.parts = parts
        #: The last Settings dialog, context viewer and Branches view opened.
        self.settings_dialog: Any = None
        self.context_dialog: Any = None
        self.branches_view: Any = None

    def open_settings(self, page: str = "providers") -> Any:
        from ikgui.config.target import store_summary
        from ikgui.ui.settings.dialog import SettingsDialog

        parts = self.parts
        settings = parts.session.settings
        keys, store = parts.services.keys, parts.session.store
        summary = store_summary(store, settings, None)  # (the keyring is asked below)
        dialog = SettingsDialog(
            settings,
            keys,
            parts.services.test_connection,
            self.save_settings,
            parts.parent,
            page=page,
            theme=settings.theme,
            store=summary,
            tool_states=parts.session.tools.host.states if parts.session.tools else None,
            test_tool_server=parts.services.test_tool_server,
        )
        if summary is not None and summary[1] is not None:
            # Where the database's password comes from: the keyring may not answer.
            dialog.general_page.look_up_password(
                dialog.providers_page.key_calls,
                lambda: (store_summary(store, settings, keys) or ("", None))[1],
            )
        dialog.theme_changed.connect(apply_theme)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.open()
        self.settings_dialog = dialog
        return dialog

    def save_settings(self, settings: Settings) -> None:
        parts = self.parts
        parts.services.save_settings(settings)
        parts.model_lists.settings_changed(settings)  # providers added, removed...
        parts.scrollback.set_text_size(settings.text_size)
        parts.redraw()
        parts.settings_saved()

    def show_context(self) -> None:
        from ikgui.ui.prompt.context_dialog import ContextDialog

        parts = self.parts
        session = parts.session
        dialog = ContextDialog(
            session.conversation.id,
            session.provider,
            session.model,
            session.context(),
            session.last_request(),
            parts.parent,
            session.system_parts(),
        )
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.show()
        self.context_dialog = dialog

    def show_branches(self, conv_id: str | None = None) -> Any:
        """The Branches view of ``conv_id`` (default: the current conversation)."""
        from ikgui.ui.branches_view import BranchesView

        parts = self.parts
        session, window = parts.session, parts.parent
        if not session.saved and conv_id is None:
            return None
        dialog = BranchesView(session.store, conv_id or session.conversation.id, window)
        dialog.open_requested.connect(parts.open_conversation)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.resize(dialog.size().boundedTo(window.size()))  # 800×600: not past the window
        dialog.show()
        self.branches_view = dialog
        return dialog


def apply_theme(theme: str) -> None:
    from PySide6.QtWidgets import QApplication

    from ikgui.ui.style import apply_style

    app = QApplication.instance()
    if isinstance(app, QApplication):
        apply_style(app, theme)
