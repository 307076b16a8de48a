"""The window's non-modal dialogs: Settings (saving applies the new settings and checks
the model server again) and the context viewer. Their modules load on first use."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt

from ikgui.domain.settings import Settings

if TYPE_CHECKING:
    from ikgui.ui.window.main_window import MainWindow


class WindowDialogs:
    def __init__(self, window: MainWindow) -> None:
        self.window = window

    def open_settings(self, page: str = "providers") -> Any:
        from ikgui.config.target import store_summary
        from ikgui.ui.settings.dialog import SettingsDialog

        window = self.window
        settings = window.session.settings
        keys, store = window.services.keys, window.store
        summary = store_summary(store, settings, None)  # (the keyring is asked below)
        dialog = SettingsDialog(
            settings,
            keys,
            window.services.test_connection,
            self.save_settings,
            window,
            page=page,
            theme=settings.theme,
            store=summary,
            tool_states=window.session.tools.host.states if window.session.tools else None,
            test_tool_server=window.services.test_tool_server,
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
        window.settings_dialog = dialog
        return dialog

    def save_settings(self, settings: Settings) -> None:
        window = self.window
        window.services.save_settings(settings)
        window.model_lists.settings_changed(settings)  # providers added, removed...
        window.scrollback.set_text_size(settings.text_size)
        window.chrome.refresh()
        window.banner.hide()
        window.spawn(window.check_models(), "check-models")

    def show_context(self) -> None:
        from ikgui.ui.prompt.context_dialog import ContextDialog

        window = self.window
        session = window.session
        dialog = ContextDialog(
            session.conversation.id,
            session.provider,
            session.model,
            session.context(),
            session.last_request(),
            window,
        )
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.show()
        window.context_dialog = dialog

    def show_branches(self, conv_id: str | None = None) -> Any:
        """The Branches view of ``conv_id`` (default: the current conversation)."""
        from ikgui.ui.branches_view import BranchesView

        window = self.window
        if not window.session.saved and conv_id is None:
            return None
        dialog = BranchesView(window.store, conv_id or window.current_id, window)
        dialog.open_requested.connect(window.open_conversation)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.resize(dialog.size().boundedTo(window.size()))  # 800×600: not past the window
        dialog.show()
        window.branches_view = dialog
        return dialog


def apply_theme(theme: str) -> None:
    from PySide6.QtWidgets import QApplication

    from ikgui.ui.style import apply_style

    app = QApplication.instance()
    if isinstance(app, QApplication):
        apply_style(app, theme)
