"""What the composition root hands the window: the session and the services the UI
uses but never builds (providers' model lists, the keys, settings that take effect)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from PySide6.QtCore import QSettings

from ikgui.domain.attachments import AttachmentError, StoredFile
from ikgui.domain.session.session import Session
from ikgui.domain.settings import ProviderSettings, Settings, ToolServerSettings
from ikgui.domain.tools import ServerState


def no_files(name: str, *_: Any) -> StoredFile:
    raise AttachmentError(f"{name}: this window attaches no files")


@dataclass
class WindowServices:
    """What the composition root hands the window; the UI never builds providers."""

    session: Session
    keys: Any  # ikgui.local.keys.KeyStore
    refresh_models: Callable[[str], Awaitable[list[str]]]
    test_connection: Callable[[ProviderSettings, str | None], Awaitable[list[str]]]
    #: Makes new settings take effect (saved, and handed to the providers and session).
    save_settings: Callable[[Settings], None]
    ui_state: QSettings
    problems: list[str] = field(default_factory=list)
    check_timeout: float = 4.0
    on_closed: Callable[[], None] | None = None
    #: Closes what the providers keep open between sends (their HTTP clients).
    close_providers: Callable[[], Awaitable[None]] | None = None
    #: Starts one tool server as configured and says how it is (Settings → Tools: Test).
    test_tool_server: Callable[[ToolServerSettings], Awaitable[ServerState]] | None = None
    #: Opens the read-only demo (None: no demo from this window).
    open_demo: Callable[[], Any] | None = None
    #: Reads and checks a file to attach (a path, the limit in MB), and checks pasted
    #: bytes (a name, the bytes): ``ikgui.files``, called in worker threads.
    read_file: Callable[[str, int], StoredFile] = no_files
    check_file: Callable[[str, bytes], StoredFile] = no_files
