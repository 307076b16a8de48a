"""Every test fails on a bug it leaves behind, even one nothing raised into the test:

- an ``ERROR`` (or worse) log record from ikgui's loggers, asyncio's or qasync's (what
  reaches the loop's default exception handler: a task's exception the window's spawner
  surfaced, a loop callback that raised, "Task exception was never retrieved" when such
  a task is collected);
- an unraisable exception (a ``__del__`` or a callback that raised where nothing could
  catch it).

The collector runs once at the end of each test, so what the test left unreachable is
finalised (and complains) within that test, not in a later one.

A test that causes such errors on purpose says so: ``@pytest.mark.logs_errors``.
Registered for every test by ``tests/conftest.py`` (``pytest_plugins``).
"""

from __future__ import annotations

import gc
import logging
import sys
import traceback
from collections.abc import Iterator

import pytest

MARKER = "logs_errors"
#: (qasync's loop logs what reaches its default exception handler under its own name.)
WATCHED = ("ikgui", "asyncio", "qasync")


class _Errors(logging.Handler):
    """The watched loggers' records of ERROR and worse."""

    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.found: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        if record.name.split(".", 1)[0] in WATCHED:
            try:
                self.found.append(f"{record.levelname} from {record.name}: {self.format(record)}")
            except Exception:  # a record whose message cannot be formatted is still one
                self.found.append(f"{record.levelname} from {record.name}: {record.msg!r}")


def _unraisable(found: list[str]) -> object:
    def hook(unraisable: sys.UnraisableHookArgs) -> None:
        what = unraisable.err_msg or "Exception ignored in"
        lines = traceback.format_exception(
            unraisable.exc_type, unraisable.exc_value, unraisable.exc_traceback
        )
        found.append(f"unraisable: {what}: {unraisable.object!r}\n{''.join(lines)}")

    return hook


@pytest.fixture(autouse=True)
def error_watch(request: pytest.FixtureRequest) -> Iterator[None]:
    errors = _Errors()
    errors.setFormatter(logging.Formatter("%(message)s"))
    unraisable: list[str] = []
    root = logging.getLogger()
    root.addHandler(errors)
    # (In front of pytest's own unraisable hook, which would only warn; this one fails
    # the test, or forgets what a marked test did on purpose.)
    previous = sys.unraisablehook
    sys.unraisablehook = _unraisable(unraisable)  # type: ignore[assignment]
    try:
        yield
        gc.collect()
    finally:
        sys.unraisablehook = previous
        root.removeHandler(errors)
    if request.node.get_closest_marker(MARKER) is not None:
        return
    found = errors.found + unraisable
    if found:
        pytest.fail(
            f"{len(found)} unexpected error(s) during the test (mark it "
            f"@pytest.mark.{MARKER} if it causes them on purpose):\n\n" + "\n\n".join(found),
            pytrace=False,
        )
