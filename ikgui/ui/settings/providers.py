"""The Settings dialog's Providers page: kind, base URL, where the API key lives (typed
keys go to the keyring on OK, never to the config), and a "Test connection" that runs on
the asyncio loop while the dialog stays responsive. A new provider can start from a
preset (OpenAI, LM Studio…) that fills in its name, kind and URL."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLineEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from ikgui.domain.errors import ProviderError
from ikgui.domain.settings import ProviderSettings, Settings
from ikgui.local.keys import KeyStore
from ikgui.ui import icons
from ikgui.ui.plain import block
from ikgui.ui.settings.common import (
    Issue,
    TestRun,
    add_row,
    env_problem,
    form_layout,
    label,
    named,
    set_invalid,
    url_problem,
)
from ikgui.ui.settings.drafts import (
    DEFAULT_URLS,
    KIND_LABELS,
    ProviderDraft,
    connected_text,
)
from ikgui.ui.settings.entries import NamedEntries, beside
from ikgui.ui.settings.key_calls import KeyCalls
from ikgui.ui.settings.key_words import NO_KEYRING, KeyWords
from ikgui.ui.settings.presets import apply_preset, preset_combo, preset_named

TestConnection = Callable[[ProviderSettings, str | None], Awaitable[list[str]]]


class ProvidersPage(QWidget):
    """Edits the providers; ``drafts`` is the list as it stands."""

    #: The list of providers or one's name changed (the other pages refresh their choices).
    providers_changed = Signal()

    def __init__(
        self,
        settings: Settings,
        keys: KeyStore,
        test_connection: TestConnection,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("providersPage")
        self._keys = keys
        self._test_connection = test_connection
        #: The keyring is asked from worker threads (it may never answer); the dialog
        #: saves through the same calls.
        self.key_calls = KeyCalls(self)
        self.key_words = KeyWords(keys, self.key_calls, self._update_key_status)
        self.drafts = [
            ProviderDraft(
                p.name,
                p.kind,
                p.base_url,
                p.api_key_env or "",
                original=p.name,
                auto_title=p.auto_title,
            )
            for p in settings.providers.values()
        ]

        self._build_fields(keys)
        self._lay_out()
        self._connect()

    def _build_fields(self, keys: KeyStore) -> None:
        self.name_edit = named(QLineEdit(), "providerName", "Provider name")
        self.editor: NamedEntries[ProviderDraft] = NamedEntries(
            "providerList",
            "provider",
            self.drafts,
            make=lambda name: ProviderDraft(
                name, "openai", DEFAULT_URLS["openai"], given_name=name
            ),
            name_edit=self.name_edit,
            show=self._show,
            before_remove=self.cancel_test,
        )
        self.preset_combo = preset_combo()
        self.kind_combo = named(QComboBox(), "providerKind", "Provider kind")
        for kind, text in KIND_LABELS.items():
            self.kind_combo.addItem(text, kind)
        self.url_edit = named(QLineEdit(), "providerUrl", "Base URL")
        self.url_edit.setPlaceholderText("http://localhost:11434")
        self.url_error = label("", "error", "providerUrlError")
        self.url_error.hide()
        self.env_edit = named(QLineEdit(), "providerKeyEnv", "Key environment variable")
        self.env_edit.setPlaceholderText("optional, e.g. OPENAI_API_KEY")
        self.env_edit.setToolTip(
            "The name of an environment variable holding the API key; it wins over the keyring"
        )
        self.key_edit = named(QLineEdit(), "providerKey", "API key")
        self.key_edit.setEchoMode(QLineEdit.EchoMode.Password)
        self.key_edit.setPlaceholderText("paste the provider's API key here")
        self.forget_button = named(QPushButton("Forget key"), "providerForgetKey", "Forget key")
        self.forget_button.setToolTip("Remove the stored key when you press OK")
        self.key_status = label("", "hint", "providerKeyStatus")
        self.notice = label(NO_KEYRING, "banner", "keyringNotice")
        if keys.probed:
            self.notice.setVisible(not keys.available)
        else:  # found once, in a worker thread (the window probes after its first paint)
            self.notice.setVisible(False)
            self.key_calls.run(lambda: keys.available, self._keyring_found)
        self.test_button = named(
            QPushButton("Test connection"), "testConnectionButton", "Test connection"
        )
        icons.set_icon(self.test_button, "retry")
        self.test_result = label("", "hint", "testConnectionResult")
        self.test = TestRun(self.test_button, self.test_result)

    def _lay_out(self) -> None:
        key_row = QHBoxLayout()
        key_row.setSpacing(6)
        key_row.addWidget(self.key_edit, 1)
        key_row.addWidget(self.forget_button)
        url_box = QVBoxLayout()
        url_box.setSpacing(4)
        url_box.addWidget(self.url_edit)
        url_box.addWidget(self.url_error)
        key_box = QVBoxLayout()
        key_box.setSpacing(4)
        key_box.addLayout(key_row)
        key_box.addWidget(self.key_status)
        # The result beside the button: one row less, so that a new provider's form (with
        # its preset) and the no-keyring notice fit the dialog's 540 px.
        test_row = QHBoxLayout()
        test_row.setSpacing(10)
        test_row.addWidget(self.test_button, 0, Qt.AlignmentFlag.AlignTop)
        test_row.addWidget(self.test_result, 1)
        form = self.form_rows = form_layout()
        add_row(form, "&Preset", self.preset_combo)
        add_row(form, "&Name", self.name_edit)
        add_row(form, "&Kind", self.kind_combo)
        add_row(form, "Base &URL", url_box, self.url_edit)
        add_row(form, "Key &variable", self.env_edit)
        add_row(form, "API k&ey", key_box, self.key_edit)
        form.addRow("", test_row)
        self.form = named(QWidget(), "providerForm", "Provider")
        self.form.setLayout(form)
        right = QVBoxLayout()
        right.setContentsMargins(0, 0, 0, 0)
        right.setSpacing(12)
        right.addWidget(self.form)
        right.addStretch(1)
        right.addWidget(self.notice)
        beside(self, self.editor, right)

    def _connect(self) -> None:
        self.editor.changed.connect(self._update_key_status)
        self.editor.changed.connect(self.providers_changed)
        self.editor.added.connect(self.preset_combo.setFocus)  # quickest: pick the server
        self.kind_combo.activated.connect(self._kind_chosen)
        self.preset_combo.activated.connect(self._preset_chosen)
        self.url_edit.textEdited.connect(self._url_edited)
        self.env_edit.textEdited.connect(self._env_edited)
        self.key_edit.textEdited.connect(self._key_edited)
        self.forget_button.clicked.connect(self._forget_clicked)
        self.test_button.clicked.connect(self.start_test)
        self.editor.fill()

    # -- selection and editing ---------------------------------------------------------

    @property
    def current(self) -> ProviderDraft | None:
        return self.editor.current

    def select(self, name: str) -> bool:
        return self.editor.select(name)

    def _show(self, draft: ProviderDraft | None) -> None:
        self.cancel_test()
        self.form.setEnabled(draft is not None)
        self.test_result.clear()
        # Presets are for a provider being added; an existing one keeps its identity.
        self.form_rows.setRowVisible(0, draft is not None and draft.original is None)
        self.preset_combo.setCurrentIndex(0)
        if draft is None:
            for edit in (self.name_edit, self.url_edit, self.env_edit, self.key_edit):
                edit.clear()
            self.key_status.clear()
            self.url_error.hide()
            return
        self.name_edit.setText(draft.name)
        self.kind_combo.setCurrentIndex(max(0, self.kind_combo.findData(draft.kind)))
        self.url_edit.setText(draft.base_url)
        self.env_edit.setText(draft.api_key_env)
        set_invalid(self.env_edit, env_problem(draft.api_key_env) is not None)
        self.key_edit.setText(draft.key)
        self._check_url()
        self._update_key_status()

    def _kind_chosen(self, index: int) -> None:
        draft = self.current
        if draft is None:
            return
        kind = str(self.kind_combo.itemData(index))
        if not draft.base_url.strip() or draft.base_url.rstrip("/") in DEFAULT_URLS.values():
            draft.base_url = DEFAULT_URLS[kind]
            self.url_edit.setText(draft.base_url)
            self._check_url()
        draft.kind = kind

    def _preset_chosen(self, index: int) -> None:
        draft = self.current
        value = self.preset_combo.itemData(index)
        preset = preset_named(value)
        if draft is None or value is None:
            return
        if preset is None:  # another OpenAI-compatible server: the user fills it in
            draft.kind = "openai"
            self.kind_combo.setCurrentIndex(self.kind_combo.findData("openai"))
            self.url_edit.setFocus()
            self.url_edit.selectAll()
            return
        if apply_preset(draft, preset, [d.name for d in self.drafts if d is not draft]):
            self.editor.rename_current(draft.name)
            self.providers_changed.emit()
        self.editor.show_current()
        self.preset_combo.setCurrentIndex(index)

    def _url_edited(self, text: str) -> None:
        if self.current is not None:
            self.current.base_url = text
            self._check_url()
            self._update_key_status()

    def _check_url(self) -> None:
        problem = url_problem(self.url_edit.text())
        self.url_error.setText(block(problem or ""))
        self.url_error.setVisible(problem is not None)
        set_invalid(self.url_edit, problem is not None)

    def _env_edited(self, text: str) -> None:
        if self.current is not None:
            self.current.api_key_env = text
            set_invalid(self.env_edit, env_problem(text) is not None)
            self._update_key_status()

    def _key_edited(self, text: str) -> None:
        if self.current is not None:
            self.current.key = text
            if text:
                self.current.forget_key = False
            self._update_key_status()

    def _forget_clicked(self) -> None:
        draft = self.current
        if draft is not None:
            draft.key = ""
            draft.forget_key = True
            self.key_edit.clear()
            self._update_key_status()

    def _keyring_found(self, available: bool | None) -> None:
        self.notice.setVisible(available is False)

    def _update_key_status(self) -> None:
        draft = self.current
        if draft is not None:
            self.key_status.setText(self.key_words.text(draft))
            stored = self.key_words.stored(draft)
            self.forget_button.setEnabled(bool(draft.key) or (stored and not draft.forget_key))

    def add_provider(self) -> None:
        self.editor.add()

    def remove_provider(self) -> None:
        self.editor.remove()

    def names(self) -> list[str]:
        return self.editor.names()

    def issues(self) -> list[Issue]:
        found: list[Issue] = []
        if not self.drafts:
            found.append(Issue("providers", "Add at least one provider.", self.editor.list))
        for row, draft in enumerate(self.drafts):
            problem = self.editor.name_problem(draft)
            if problem:
                found.append(Issue("providers", problem, self.name_edit, row))
            problem = env_problem(draft.api_key_env)
            if problem:
                found.append(Issue("providers", problem, self.env_edit, row))
            problem = url_problem(draft.base_url)
            if problem:
                message = f"Provider “{draft.name}”: {problem[0].lower()}{problem[1:]}"
                found.append(Issue("providers", message, self.url_edit, row))
        return found

    # -- test connection -----------------------------------------------------------------

    def start_test(self) -> None:
        """Run ``test_connection`` for the selected provider on the asyncio loop."""
        draft = self.current
        if draft is None:
            return
        problem = url_problem(draft.base_url)
        if problem:
            self.test.show(problem, "error")
            return
        provider = draft.settings()
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            self.test.show("Cannot test the connection: no event loop is running.", "error")
            return
        self.test.start(self._run_test(draft, provider), "Testing…")

    async def _run_test(self, draft: ProviderDraft, provider: ProviderSettings) -> None:
        keys = self._keys
        try:
            # The stored key, asked in a worker thread (the keyring may not answer).
            key: str | None = draft.key or None
            if not key and not draft.forget_key:
                key = await asyncio.to_thread(keys.get, draft.key_owner, provider.api_key_env)
            models = await self._test_connection(provider, key)
        except asyncio.CancelledError:
            raise
        except ProviderError as exc:
            self.test.finish(exc.window_text, "error")
        except Exception as exc:  # a bug or an unexpected failure: still one plain line
            self.test.finish(f"Test failed: {exc or type(exc).__name__}", "error")
        else:
            self.test.finish(connected_text(list(models)), "success")

    @property
    def testing(self) -> bool:
        return self.test.running

    def cancel_test(self) -> None:
        """Stop a running test (another provider was selected, or the dialog closed)."""
        self.test.cancel()
