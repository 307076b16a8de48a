"""``ikgui run`` (send a message or run a slash command) and ``ikgui keys``.

``run`` streams the reply to stdout and the conversation id to stderr; Ctrl+C or
SIGTERM stops the stream and keeps the partial reply (a closed stdout, as in
``ikgui run … | head``, stops it too); a provider failure is saved as an ``error``
event, printed as one ``Error: `` line, and exits 3. ``--no-save`` works on a scratch
copy of the conversation that is thrown away afterwards. With MCP servers configured the
model is offered their tools (not with ``--no-tools``): :mod:`ikgui.cli.approval` asks
about each call on a terminal, or allows it by ``--allow``, and says each call and result
on stderr; the servers stop when the run ends.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import getpass
import signal
import sys
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ikgui.app.store import KEY_NAME
from ikgui.cli import output as out
from ikgui.cli.db import database_password, database_status
from ikgui.cli.tools import KEY_PREFIX, cmd_tool_key, key_entries
from ikgui.domain.attachments import Attachment, StoredFile
from ikgui.domain.errors import IkguiError, ProviderError, UsageError, UserError
from ikgui.domain.events import Event, Kind
from ikgui.domain.library import exchange, folders
from ikgui.domain.library.listing import describe
from ikgui.domain.ports import Store
from ikgui.domain.session.session import Session
from ikgui.domain.state.catalog import parse_choice
from ikgui.domain.state.facts import Changed, DeltaReceived, Fact
from ikgui.domain.state.ids import resolve_ref
from ikgui.domain.state.working_prompt import PromptBlockGate
from ikgui.domain.text.safe import terminal_safe
from ikgui.local import recovery

if TYPE_CHECKING:
    from ikgui.cli.env import Env


def _text(args: argparse.Namespace) -> str:
    words = list(args.text)
    # `-c` takes an optional REF: `-c /rewind cp` and `-c "follow up"` carry text, not a ref.
    if args.cont and (args.cont.startswith("/") or not words):
        words.insert(0, args.cont)
        args.cont = ""
    text = " ".join(words)
    if not text.strip() and not sys.stdin.isatty():
        text = sys.stdin.read().strip()
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:  # bytes that are not UTF-8 come as lone surrogates
            raise UsageError(
                "the text on standard input is not valid text (its bytes are not UTF-8): "
                "give text as UTF-8"
            ) from None
    if not text.strip() and not args.attach:  # (files alone are a message)
        raise UsageError("Nothing to send: give a message or a /command")
    return text


def _target(env: Env, args: argparse.Namespace) -> str | None:
    """The id of the conversation to continue, or ``None`` for a new one."""
    if args.cid is not None:
        if not args.cid.strip():
            raise UsageError("--cid needs a conversation id")
        if env.store.get_conversation(args.cid) is None:
            raise UserError(f"Conversation not found: {args.cid}")
        return str(args.cid)
    if args.cont:
        return resolve_ref(env.store, args.cont)
    if args.cont == "":
        last = env.store.last_conversation(args.agent)
        if last is None:
            raise UserError("No conversation to continue")
        return last.id
    return None


class _Printer:
    """Follows the session: streams deltas to stdout, remembers the reply.

    If stdout's reader goes away (``| head -c 100``), the reply is stopped as by
    Ctrl+C (what arrived is kept) and nothing more is printed. Unless the output is
    JSON, a command's output is printed as soon as it is known (``early``), before a
    reply the command sends (``/fork "summarize this"``).
    """

    def __init__(self, session: Session, stream: bool, early: bool) -> None:
        self.session = session
        self.stream = stream
        self.early = early
        self.reply: Event | None = None
        #: The reply's text printed so far, in pieces (a ``json``-mode prompt block is
        #: held back): joined only at the end, as adding each delta to one string copies
        #: all that came before (20 MB of small deltas took minutes).
        self.pieces: list[str] = []
        self.last = ""  # the last character printed
        self.pipe_closed = False
        self.gate: PromptBlockGate | None = None
        #: The reply's text as printed (decided once: a per-delta ``isatty`` is a syscall).
        self.shown = terminal_safe if out.is_terminal(sys.stdout) else str

    def __call__(self, fact: Fact) -> None:
        if isinstance(fact, DeltaReceived) and self.stream and not self.pipe_closed:
            if self.gate is None:
                self.gate = PromptBlockGate(self.session.prompt_mode)
            self.write(self.gate.feed(fact.text), fact.conversation_id)
        elif isinstance(fact, DeltaReceived):
            self.follow(fact.event)
        elif isinstance(fact, Changed):
            for event in fact.events:
                self.follow(event)
                if event.kind == Kind.TOOL_CALL and self.last not in ("", "\n"):
                    self.write("\n", event.conversation_id)  # its stderr line follows

    def follow(self, event: Event) -> None:
        """Keep the newest form of the reply being printed."""
        if event.kind != Kind.ASSISTANT:
            return
        if self.reply is not None and self.reply.id != event.id:
            # Another reply (a command's, or the model's again after its tool calls):
            # it starts on a line of its own.
            if self.stream and self.last and self.last != "\n" and not self.pipe_closed:
                self.write("\n", event.conversation_id)
            self.gate, self.pieces, self.last = None, [], ""
        self.reply = event

    def write(self, text: str, conv_id: str | None) -> None:
        if not text or self.pipe_closed:
            return
        try:
            sys.stdout.write(self.shown(text))
            sys.stdout.flush()
        except BrokenPipeError:
            self.pipe_closed = True
            self.session.stop(conv_id)
            return
        self.pieces.append(text)
        self.last = text[-1]

    def end_line(self) -> None:
        """The rest of the reply as shown (what the gate held back but is not the
        prompt block), then a line end."""
        if not self.stream:
            return
        reply = self.reply
        if reply is not None and self.gate is not None and self.gate.active:
            end = reply.data.get("display_end")
            shown = reply.content[:end] if isinstance(end, int) else reply.content
            printed = "".join(self.pieces)
            if shown.startswith(printed):
                self.write(shown[len(printed) :], reply.conversation_id)
        if self.last and self.last != "\n":
            sys.stdout.write("\n")

    def say_prompt(self) -> None:
        """``-v``: the working prompt the reply set, or why a ``json`` reply set none."""
        data = self.reply.data if self.reply is not None else {}
        if isinstance(data.get("prompt"), str):
            print(f"Prompt: {terminal_safe(data['prompt'])}", file=sys.stderr)
        elif isinstance(data.get("prompt_warning"), str):
            print(f"Warning: {terminal_safe(data['prompt_warning'])}", file=sys.stderr)


class _Signals:
    #: SIGTERM stopped the last run (its exit code is 143, not Ctrl+C's 130).
    terminated = False


def cmd_run(env: Env, args: argparse.Namespace) -> int:
    if args.project is not None and (args.cont is not None or args.cid is not None):
        raise UsageError("-P starts a new conversation in a project: not with -c or --cid")
    text = _text(args)
    if args.provider and args.provider not in env.settings.providers:
        raise UserError(f"Unknown provider '{args.provider}'")
    files = _attached(env, args, text)  # before anything: one bad file refuses it all
    target = _target(env, args)
    if not args.no_save:
        return _exit_code(_run(_session(env, args), target, text, args, env, files))
    with tempfile.TemporaryDirectory(prefix="ikgui-nosave-") as scratch_dir:
        from ikgui.storage import open_store

        scratch = open_store(Path(scratch_dir) / "scratch.db")
        try:
            if args.project:  # its settings, read at each request, are the store's
                _lend_project(env.store, scratch, args.project)
            if target is not None:
                document = exchange.export_json(env.store, [target])
                exchange.import_document(scratch, document, time.time())
            session = _session(env, args, scratch)
            return _exit_code(_run(session, target, text, args, env, files))
        finally:
            scratch.close()


def _lend_project(store: Store, scratch: Store, folder: str) -> None:
    """``--no-save -P``: the project's settings and files copied into the scratch store."""
    project = folders.project_in(store, folder)
    if project is not None:
        scratch.put_files(list(store.read_files([a.sha256 for a in project.files]).values()))
        scratch.put_project(project)


def _attached(env: Env, args: argparse.Namespace, text: str) -> list[StoredFile | Attachment]:
    """``--attach FILE``: each file read and checked (SPEC §13), or the one line why
    not (exit 1, nothing sent, nothing stored)."""
    if not args.attach:
        return []
    if text.startswith("/") and not text.startswith("//"):
        raise UsageError("--attach sends files with a message, not with a command")
    from ikgui.files import read_file

    return [read_file(path, env.settings.attachment_mb) for path in args.attach]


def _session(env: Env, args: argparse.Namespace, store: Store | None = None) -> Session:
    """The session ``run`` works in: with the configured tool servers unless
    ``--no-tools``; calls are asked about on a terminal, else denied unless ``--allow``;
    a server's question is asked on a terminal too, else declined."""
    session = env.session(store, tools=not args.no_tools)
    if session.tools is not None:
        from ikgui.cli.approval import TerminalApprover, always_writer

        approver = TerminalApprover(args.allow, ask=out.is_terminal(sys.stdin))
        session.tools.approver = approver
        session.tools.questioner = approver.answer
        session.tools.remember_always = always_writer(env.paths.config)
    return session


def _exit_code(code: int) -> int:
    return 143 if code == 130 and _Signals.terminated else code


def _overrides(session: Session, target: str | None, args: argparse.Namespace) -> None:
    """``-p``/``-m``: a new conversation starts with them; a continued one uses them
    for this request only and keeps its own (SPEC §9; ``/model`` changes it for good)."""
    given = {k: v for k, v in (("provider", args.provider), ("model", args.model)) if v}
    if target is None:
        if given:
            session.update_fields(**given)
    else:
        session.overrides.update(given)


def _print_result(
    session: Session,
    printer: _Printer,
    output: str,
    args: argparse.Namespace,
    error: ProviderError | None,
    interrupted: bool,
) -> None:
    """What ``ikgui run`` prints on stdout once the request is over: its JSON, or the
    commands' output and a reply that was not streamed (and the working prompt, with -v)."""
    reply = printer.reply
    if args.json:
        _print_json(session, output, reply, error, interrupted)
    else:
        if output:
            out.say(output)
        if reply is not None and not printer.stream:
            out.reply(describe(reply), "\n")
    if args.verbose and not args.json:
        printer.say_prompt()


def _open(
    session: Session,
    target: str | None,
    args: argparse.Namespace,
    env: Env,
    text: str,
    files: list[StoredFile | Attachment],
) -> None:
    """The conversation the line goes to: a new one (in a project with ``-P``), or
    ``target`` opened."""
    if target is None and args.project:
        _in_project(session, args, env, text, files)
    elif target is None:
        session.new_conversation(args.agent or env.settings.default_agent)
    else:
        session.open(target)
        session.settle_interrupted_calls()  # a crash's calls: shown so, never run again


def _in_project(
    session: Session,
    args: argparse.Namespace,
    env: Env,
    text: str,
    files: list[StoredFile | Attachment],
) -> None:
    """``-P FOLDER``: a new conversation tagged with the folder, with its project's agent,
    provider and model (``-a``, ``-p``, ``-m`` win), its files sent with the message."""
    project = folders.project_in(session.store, args.project)
    agent = args.agent or (project and project.agent) or env.settings.default_agent
    session.new_conversation(agent, project=args.project)
    if not text.startswith("/") or text.startswith("//"):
        files[:0] = session.project_files()


def _run(
    session: Session,
    target: str | None,
    text: str,
    args: argparse.Namespace,
    env: Env,
    files: list[StoredFile | Attachment],
) -> int:
    _open(session, target, args, env, text, files)
    _overrides(session, target, args)
    printer = _Printer(session, stream=not (args.json or args.no_stream), early=not args.json)
    session.subscribe(printer)
    if session.tools is not None and not args.quiet:
        from ikgui.cli.approval import ToolLines

        session.subscribe(ToolLines())  # after the printer: it ends the reply's line first
    error: ProviderError | None = None
    #: What failed after the reply streamed (the store went away under the title's read).
    failure: IkguiError | None = None
    interrupted, output = False, ""
    try:
        output = asyncio.run(_execute(session, text, env, printer, files))
    except ProviderError as exc:
        error = exc
    except KeyboardInterrupt as exc:
        interrupted = True
        if getattr(exc, "signum", None) == signal.SIGTERM:  # while waiting for the keyring
            _Signals.terminated = True
    except asyncio.CancelledError:  # the printer stopped it: stdout's reader went away
        _rescue_before_leaving(session, env, args)
        raise BrokenPipeError from None  # ikgui.cli.main.main exits quietly
    except IkguiError as exc:
        if printer.reply is None:  # nothing streamed: the error says it all
            _rescue_before_leaving(session, env, args)
            raise
        failure = exc
    except BaseException:
        _rescue_before_leaving(session, env, args)  # whatever failed, the reply is kept
        raise
    printer.end_line()
    unsaved = None if args.no_save else _rescue(session, env)
    _print_result(session, printer, output, args, error, interrupted)
    if interrupted and not args.quiet:
        print("(stopped)", file=sys.stderr)
    if error is not None:
        out.error(error.line)
    if session.saved and not args.quiet and not args.no_save:
        print(session.conversation.id, file=sys.stderr)
    if unsaved:
        out.error(unsaved)
    elif failure is not None:
        out.error(failure.line)
    if interrupted or error is not None:
        return error.exit_code if error is not None else 130  # (never both: one except)
    return failure.exit_code if failure is not None else (1 if unsaved else 0)


def _rescue(session: Session, env: Env) -> str | None:
    """What waits, written to the database in use or to a recovery file (the line to
    print, or ``None`` when everything is saved)."""
    return recovery.rescue(session, env.paths.database, env.store_name)


def _rescue_before_leaving(session: Session, env: Env, args: argparse.Namespace) -> None:
    """On the way out by an exception: keep what waits, and say where it went."""
    if args.no_save:
        return
    try:
        unsaved = _rescue(session, env)
    except Exception:  # the exception on its way out says what went wrong
        return
    if unsaved:
        out.error(unsaved)


class _Terminated(KeyboardInterrupt):
    """SIGTERM arrived: handled exactly like Ctrl+C."""


async def _execute(
    session: Session,
    text: str,
    env: Env,
    printer: _Printer,
    files: list[StoredFile | Attachment],
) -> str:
    """Run the line; SIGTERM cancels it as Ctrl+C does (the partial reply is kept)."""
    task = asyncio.current_task()
    loop = asyncio.get_running_loop()
    _Signals.terminated = False

    def terminate() -> None:
        _Signals.terminated = True
        if task is not None:
            task.cancel()

    installed = False
    with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
        loop.add_signal_handler(signal.SIGTERM, terminate)
        installed = True
    try:
        if files:  # a message (never a command): sent as it is, `//` unescaped
            await session.send(text[1:] if text.startswith("//") else text, files)
            return ""
        return await _line(session, text, env, printer)
    except asyncio.CancelledError:
        if _Signals.terminated:
            raise _Terminated from None
        raise
    finally:
        if installed:
            loop.remove_signal_handler(signal.SIGTERM)
        if session.tools is not None:  # its servers stop with the run
            await asyncio.shield(session.tools.host.close())


async def _line(session: Session, text: str, env: Env, printer: _Printer) -> str:
    """The line's output, or ``""`` when it was printed early."""
    if text.startswith("//") or not text.startswith("/"):
        return await session.execute(text)
    if text.startswith("/model"):
        # So /model can list and check names (the provider moved to too); a server that
        # is down just can't.
        here, providers = session.provider, env.providers
        with contextlib.suppress(ProviderError):
            await providers.refresh_models(here)
        name = text[len("/model") :].strip()
        target, _ = parse_choice(name, session.settings, here, providers.known_models(here))
        if name and target != here:
            with contextlib.suppress(ProviderError):
                await providers.refresh_models(target)
    if not printer.early:
        return await session.execute(text)
    result = session.registry.dispatch(session, text)
    if result.output:
        out.say(result.output)
        sys.stdout.flush()
    if result.send is not None:
        await session.send(result.send)
    return ""


def _print_json(
    session: Session,
    output: str,
    reply: Event | None,
    error: ProviderError | None,
    interrupted: bool,
) -> None:
    result: dict[str, Any] = {"id": session.conversation.id if session.saved else None}
    if output:
        result["output"] = output
    if reply is not None:
        data = reply.data
        result.update(
            reply=describe(reply) if not data.get("interrupted") else reply.content,
            provider=data.get("provider"),
            model=data.get("model"),
            usage=data.get("usage"),
            cost=data.get("cost"),
            finish_reason=data.get("finish_reason"),
            interrupted=bool(data.get("interrupted")),
        )
        if "prompt" in data:
            result["prompt"] = data["prompt"]
    if interrupted:
        result["interrupted"] = True
    if error is not None:
        result["error"] = {
            "message": error.message,
            "category": error.category,
            "status": error.status,
        }
    out.print_json(result)


def cmd_keys(env: Env, args: argparse.Namespace) -> int:
    if args.provider == KEY_NAME:
        return database_password(env, args.action)
    if args.provider and args.provider.startswith(KEY_PREFIX):
        return cmd_tool_key(env, args.action, args.provider)
    keys = env.providers.keys
    names = [args.provider] if args.provider else sorted(env.settings.providers)
    if args.action == "status":
        for name in names:
            config = env.settings.providers.get(name)
            variable = config.api_key_env if config else None
            status = keys.status(name, variable)
            if config and config.kind == "ollama" and status.startswith("not set"):
                status = "not set (a local Ollama needs none)"
            out.say(f"{name}: {status}")
        database_status(env)
        if not args.provider:
            for entry, secret_variable in key_entries(env.settings):
                out.say(f"{entry}: {keys.status(entry, secret_variable)}")
        if keys.notice:
            out.say(f"Note: {keys.notice}")
        return 0
    if not args.provider:
        raise UsageError(f"Usage: ikgui keys {args.action} PROVIDER")
    name = args.provider
    if name not in env.settings.providers:
        out.error(f"Warning: '{name}' is not a provider in config.toml yet.")
    if args.action == "delete":
        if keys.delete(name):
            out.say(f"Deleted the key for {name}.")
        else:
            out.say(f"No key was stored for {name}.")
        return 0
    if not keys.available:
        raise UserError(
            f"No system keyring is available here, so the key cannot be kept. Set "
            f'api_key_env = "{name.upper()}_API_KEY" under [providers.{name}] in config.toml '
            "and export that variable instead."
        )
    if sys.stdin.isatty():
        key = getpass.getpass(f"API key for {name} (input is hidden): ")
    else:
        key = sys.stdin.readline()
    key = key.strip()
    if not key:
        raise UsageError("No key given: nothing was stored")
    where = keys.set(name, key)
    if where != "keyring":
        raise UserError("The system keyring refused the key; it was not stored.")
    out.say(f"Stored the key for {name} in the system keyring.")
    return 0
