"""The Settings dialog's Tools page (SPEC §12): the MCP servers of ``[mcp.<name>]`` — a
command with its arguments (stdio) or a URL (Streamable HTTP), plain environment values,
the time limit of a call, enabled — each one's state (running with its tools; failed with
why and the last lines of its stderr), the standing "Always allow" grants with Remove, and
a Test button that starts the server off the window's thread and shows its tools.

Everything a server says of itself is shown as plain text. Secrets never go here: they
are named in ``secret_env`` (kept as config.toml has it) and live in the keyring.
"""

from __future__ import annotations

import asyncio
import re
import shlex
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field, replace

from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QHBoxLayout,
    QLineEdit,
    QListWidget,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from ikgui.domain.settings import TOOL_TIMEOUT, Settings, ToolServerSettings
from ikgui.domain.text.safe import one_line
from ikgui.domain.tools import FAILED, RUNNING, ServerState
from ikgui.ui import icons
from ikgui.ui.plain import block
from ikgui.ui.settings.common import Issue, TestRun, add_row, form_layout, label, named
from ikgui.ui.settings.entries import NamedEntries, beside

TestServer = Callable[[ToolServerSettings], Awaitable[ServerState]]
#: ``NAME=value``, one a line.
_ENV_LINE = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)=(.*)$")
COMMAND, URL = "command", "url"


@dataclass
class ServerDraft:
    """A tool server being edited (the fields as typed)."""

    name: str
    way: str = COMMAND
    command: str = ""
    args: str = ""
    url: str = ""
    env: str = ""
    timeout: str = f"{TOOL_TIMEOUT:g}"
    enabled: bool = True
    always_allow: list[str] = field(default_factory=list)
    #: What this page does not edit, kept as config.toml has it.
    kept: ToolServerSettings | None = None

    @classmethod
    def of(cls, server: ToolServerSettings) -> ServerDraft:
        return cls(
            server.name,
            URL if server.url is not None else COMMAND,
            server.command or "",
            shlex.join(server.args),
            server.url or "",
            "\n".join(f"{k}={v}" for k, v in server.env),
            f"{server.timeout:g}",
            server.enabled,
            list(server.always_allow),
            server,
        )

    def problem(self) -> str | None:
        """Why this server cannot be saved as typed, or None."""
        if self.way == COMMAND:
            if not self.command.strip():
                return f"Tool server “{self.name}”: enter the command that starts it."
            try:
                shlex.split(self.args)
            except ValueError as exc:
                return f"Tool server “{self.name}”: its arguments do not parse ({exc})."
        elif not re.match(r"https?://\S+$", self.url.strip()):
            return f"Tool server “{self.name}”: its URL must start with http:// or https://."
        try:
            timeout = float(self.timeout.strip())
        except ValueError:
            return f"Tool server “{self.name}”: the time limit must be a number of seconds."
        if not 0 < timeout < float("inf"):
            return f"Tool server “{self.name}”: the time limit must be more than 0 seconds."
        for line in self.env.splitlines():
            if line.strip() and not _ENV_LINE.match(line.strip()):
                return (
                    f"Tool server “{self.name}”: “{one_line(line.strip())}” is not "
                    "NAME=value (secrets go in the keyring: ikgui keys set mcp.<name>.<VAR>)."
                )
        return None

    def settings(self) -> ToolServerSettings:
        env = tuple(
            (m.group(1), m.group(2))
            for line in self.env.splitlines()
            if (m := _ENV_LINE.match(line.strip()))
        )
        base = self.kept or ToolServerSettings(self.name)
        command = self.way == COMMAND
        return replace(
            base,
            name=self.name,
            command=self.command.strip() if command else None,
            args=tuple(shlex.split(self.args)) if command else (),
            url=None if command else self.url.strip(),
            env=env,
            cwd=base.cwd if command else None,
            enabled=self.enabled,
            timeout=float(self.timeout.strip()),
            always_allow=tuple(self.always_allow),
        )


def state_text(state: ServerState | None, enabled: bool) -> str:
    """A server's state in words, its tools or why it failed (plain text)."""
    if not enabled:
        return "Turned off: conversations do not offer its tools."
    if state is None or state.state not in (RUNNING, FAILED):
        return "Not started yet: it starts when a conversation needs it (or press Test)."
    if state.state == FAILED:
        lines = [f"Failed: {one_line(state.reason or 'it did not start')}"]
        if state.stderr:
            lines.append("Its last lines of output:")
            lines.extend(f"  {one_line(line)}" for line in state.stderr)
        return "\n".join(lines)
    count = len(state.tools)
    lines = [f"Running, {count} {'tool' if count == 1 else 'tools'}:"]
    for tool in state.tools:
        about = one_line(" ".join(tool.description.split()))
        lines.append(f"  {one_line(tool.name)}" + (f" — {about[:160]}" if about else ""))
    return "\n".join(lines)


class ToolsPage(QWidget):
    """Edits the tool servers; ``drafts`` is the list as it stands."""

    def __init__(
        self,
        settings: Settings,
        states: Callable[[], list[ServerState]] | None = None,
        test_server: TestServer | None = None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("toolsPage")
        self._states = states or (lambda: [])
        self._test_server = test_server
        self._tested: dict[str, ServerState] = {}
        self._showing = False
        self.drafts = [ServerDraft.of(s) for s in settings.tool_servers.values()]
        self._build()
        self._connect()
        self.editor.fill()

    def _build(self) -> None:
        self.name_edit = named(QLineEdit(), "toolServerName", "Tool server name")
        self.editor: NamedEntries[ServerDraft] = NamedEntries(
            "toolServerList",
            "server",
            self.drafts,
            make=lambda name: ServerDraft(name),
            name_edit=self.name_edit,
            show=self._show,
            before_remove=self.cancel_test,
        )
        self.way_combo = named(QComboBox(), "toolServerWay", "How it runs")
        self.way_combo.addItem("A command (stdio)", COMMAND)
        self.way_combo.addItem("A URL (Streamable HTTP)", URL)
        self.command_edit = named(QLineEdit(), "toolServerCommand", "Command")
        self.command_edit.setPlaceholderText("e.g. npx or uvx")
        self.args_edit = named(QLineEdit(), "toolServerArgs", "Arguments")
        self.args_edit.setPlaceholderText("e.g. -y @modelcontextprotocol/server-filesystem ~/notes")
        self.url_edit = named(QLineEdit(), "toolServerUrl", "URL")
        self.url_edit.setPlaceholderText("https://example.com/mcp")
        self.env_edit = named(QPlainTextEdit(), "toolServerEnv", "Environment")
        self.env_edit.setPlaceholderText("NAME=value, one a line (no secrets: use the keyring)")
        self.env_edit.setTabChangesFocus(True)
        self.env_edit.setFixedHeight(self.env_edit.fontMetrics().lineSpacing() * 3 + 16)
        self.timeout_edit = named(QLineEdit(), "toolServerTimeout", "Time limit per call")
        self.enabled_box = named(QCheckBox("Offer its tools"), "toolServerEnabled", "Enabled")
        self.grants = named(QListWidget(), "toolGrants", "Always allowed tools")
        self.grants.setMaximumHeight(80)
        self.remove_grant = named(
            QPushButton("Remove grant"), "toolGrantRemove", "Remove the selected grant"
        )
        self.remove_grant.setToolTip("Ask again before running this tool")
        self.test_button = named(QPushButton("Test"), "toolServerTest", "Test the server")
        self.test_button.setToolTip("Start the server as configured here and list its tools")
        icons.set_icon(self.test_button, "retry")
        self.state_view = named(QPlainTextEdit(), "toolServerState", "Server state")
        self.state_view.setReadOnly(True)  # plain text: a server's words, never rich
        self.test_result = label("", "hint", "toolServerTestResult")
        self.test = TestRun(self.test_button, self.test_result)
        self._lay_out()

    def _lay_out(self) -> None:
        form = self.form_rows = form_layout()
        add_row(form, "&Name", self.name_edit)
        add_row(form, "&Runs", self.way_combo)
        add_row(form, "&Command", self.command_edit)
        add_row(form, "&Arguments", self.args_edit)
        add_row(form, "&URL", self.url_edit)
        add_row(form, "&Environment", self.env_edit)
        add_row(form, "&Time limit (s)", self.timeout_edit)
        form.addRow("", self.enabled_box)
        grant_box = QVBoxLayout()
        grant_box.setSpacing(4)
        grant_box.addWidget(self.grants)
        grant_row = QHBoxLayout()
        grant_row.addWidget(self.remove_grant)
        grant_row.addStretch(1)
        grant_box.addLayout(grant_row)
        add_row(form, "Always &allowed", grant_box, self.grants)
        test_row = QHBoxLayout()
        test_row.setSpacing(10)
        test_row.addWidget(self.test_button)
        test_row.addWidget(self.test_result, 1)
        form.addRow("", test_row)
        self.form = named(QWidget(), "toolServerForm", "Tool server")
        self.form.setLayout(form)
        right = QVBoxLayout()
        right.setContentsMargins(0, 0, 0, 0)
        right.setSpacing(8)
        right.addWidget(self.form)
        right.addWidget(self.state_view, 1)
        beside(self, self.editor, right)

    def _connect(self) -> None:
        self.way_combo.activated.connect(self._way_chosen)
        self.command_edit.textEdited.connect(lambda t: self._set("command", t))
        self.args_edit.textEdited.connect(lambda t: self._set("args", t))
        self.url_edit.textEdited.connect(lambda t: self._set("url", t))
        self.timeout_edit.textEdited.connect(lambda t: self._set("timeout", t))
        self.env_edit.textChanged.connect(
            lambda: self._set("env", self.env_edit.toPlainText()) if not self._showing else None
        )
        self.enabled_box.toggled.connect(lambda on: self._set("enabled", on))
        self.remove_grant.clicked.connect(self._remove_grant)
        self.test_button.clicked.connect(self.start_test)
        self.editor.added.connect(self._added)

    # -- the form -------------------------------------------------------------------------
    @property
    def current(self) -> ServerDraft | None:
        return self.editor.current

    def _set(self, key: str, value: object) -> None:
        if self.current is not None and not self._showing:
            setattr(self.current, key, value)
            if key == "enabled":
                self._show_state()

    def _show(self, draft: ServerDraft | None) -> None:
        self.cancel_test()
        self._showing = True
        self.form.setEnabled(draft is not None)
        self.test_result.clear()
        if draft is None:
            for edit in (self.name_edit, self.command_edit, self.args_edit, self.url_edit):
                edit.clear()
            self.env_edit.clear()
            self.timeout_edit.clear()
            self.grants.clear()
            self.state_view.clear()
        else:
            self.name_edit.setText(draft.name)
            self.way_combo.setCurrentIndex(max(0, self.way_combo.findData(draft.way)))
            self.command_edit.setText(draft.command)
            self.args_edit.setText(draft.args)
            self.url_edit.setText(draft.url)
            self.env_edit.setPlainText(draft.env)
            self.timeout_edit.setText(draft.timeout)
            self.enabled_box.setChecked(draft.enabled)
            self._fill_grants(draft)
            self._show_way(draft.way)
        self._showing = False
        self._show_state()

    def _show_way(self, way: str) -> None:
        command = way == COMMAND
        for row in (2, 3):
            self.form_rows.setRowVisible(row, command)
        self.form_rows.setRowVisible(4, not command)

    def _way_chosen(self, index: int) -> None:
        way = str(self.way_combo.itemData(index))
        self._set("way", way)
        self._show_way(way)

    def _fill_grants(self, draft: ServerDraft) -> None:
        self.grants.clear()
        for tool in draft.always_allow:
            self.grants.addItem(one_line(tool))
        self.remove_grant.setEnabled(bool(draft.always_allow))
        if draft.always_allow:
            self.grants.setCurrentRow(0)

    def _remove_grant(self) -> None:
        draft, row = self.current, self.grants.currentRow()
        if draft is None or not 0 <= row < len(draft.always_allow):
            return
        del draft.always_allow[row]
        self._fill_grants(draft)

    def _added(self) -> None:
        self.command_edit.setFocus()

    def _show_state(self) -> None:
        draft = self.current
        if draft is None:
            return
        state = self._tested.get(draft.name)
        if state is None:
            state = next((s for s in self._states() if s.name == draft.name), None)
        self.state_view.setPlainText(block(state_text(state, draft.enabled)))

    # -- saving ---------------------------------------------------------------------------
    def issues(self) -> list[Issue]:
        found: list[Issue] = []
        for row, draft in enumerate(self.drafts):
            problem = self.editor.name_problem(draft)
            if problem is None and not re.match(r"^[A-Za-z0-9_-]+$", draft.name):
                problem = f"The server name “{draft.name}” may hold letters, digits, - and _ only."
            if problem:
                found.append(Issue("tools", problem, self.name_edit, row))
                continue
            problem = draft.problem()
            if problem:
                found.append(Issue("tools", problem, None, row))
        return found

    def servers(self) -> dict[str, ToolServerSettings]:
        return {draft.name: draft.settings() for draft in self.drafts}

    # -- test -----------------------------------------------------------------------------
    def start_test(self) -> None:
        """Start the selected server as typed (off the window's thread) and show how it is."""
        draft = self.current
        if draft is None or self._test_server is None:
            return
        problem = draft.problem()
        if problem:
            self.test.show(problem, "error")
            return
        self.test.start(self._run_test(draft, draft.settings()), "Starting…")

    async def _run_test(self, draft: ServerDraft, server: ToolServerSettings) -> None:
        assert self._test_server is not None
        try:
            state = await self._test_server(server)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # still one plain line, never a traceback
            self.test.finish(f"Test failed: {one_line(str(exc)) or type(exc).__name__}", "error")
            return
        self._tested[draft.name] = state
        ok = state.state == RUNNING
        self.test.finish("It started." if ok else "It did not start.", "success" if ok else "error")
        self._show_state()

    @property
    def testing(self) -> bool:
        return self.test.running

    def cancel_test(self) -> None:
        self.test.cancel()
