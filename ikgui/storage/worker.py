"""The database thread: one thread that runs a store's queued requests in order, each
answered through a future, so that the GUI thread need not wait for a server that
stopped answering (issue 22 item 4).

A request with a ``key`` replaces the one with the same key still waiting in the queue
(a growing reply's save: only the newest text matters). Everything else the store does
first waits for the queue to empty (:meth:`DatabaseThread.settle`), so the database sees
the writes in the order they were made.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable, Hashable
from concurrent.futures import Future
from typing import Any


class _Job:
    __slots__ = ("args", "function", "future", "key")

    def __init__(
        self, key: Hashable | None, function: Callable[..., Any], args: tuple[Any, ...]
    ) -> None:
        self.key = key
        self.function = function
        self.args = args
        self.future: Future[Any] = Future()


class DatabaseThread:
    def __init__(self, name: str = "ikgui-database") -> None:
        self._jobs: deque[_Job] = deque()
        self._changed = threading.Condition()
        self._busy = False
        #: When the request running now started (``time.monotonic()``), else None.
        self._started: float | None = None
        #: When a request last ended (answered or failed: the server spoke either way).
        self.answered_at = time.monotonic()
        #: How long a request usually takes (a moving average, seconds).
        self.typical = 0.0
        self._closing = False
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)
        self._thread.start()

    @property
    def current(self) -> bool:
        """Whether the caller runs on this thread."""
        return threading.get_ident() == self._thread.ident

    @property
    def idle(self) -> bool:
        with self._changed:
            return not self._jobs and not self._busy

    def busy_for(self) -> float:
        """How long the request running now has been waiting for the database (seconds;
        0 when none runs): what tells a window the server does not answer."""
        started = self._started
        return 0.0 if started is None else max(0.0, time.monotonic() - started)

    def submit(
        self, function: Callable[..., Any], *args: Any, key: Hashable | None = None
    ) -> Future[Any]:
        """Run ``function(*args)`` on the thread after what is queued; a waiting request
        with the same ``key`` is dropped (its future answers None)."""
        job = _Job(key, function, args)
        with self._changed:
            if self._closing:
                raise RuntimeError("the database thread is closed")
            if key is not None:
                for waiting in [j for j in self._jobs if j.key == key]:
                    self._jobs.remove(waiting)
                    waiting.future.set_result(None)
            self._jobs.append(job)
            self._changed.notify_all()
        return job.future

    def wait_idle(self, timeout: float) -> bool:
        """Wait at most ``timeout`` seconds for every queued request to have run; whether
        they have (never waits on the thread itself)."""
        if self.current:
            return True
        with self._changed:
            return self._changed.wait_for(lambda: not self._jobs and not self._busy, timeout)

    def settle(self) -> None:
        """Wait until every queued request has run (never on the thread itself)."""
        if self.current:
            return
        with self._changed:
            self._changed.wait_for(lambda: not self._jobs and not self._busy)

    def close(self, last: Callable[[], object] | None = None, wait: float | None = None) -> None:
        """Run what is queued, then ``last`` (on the thread: closing its connection), and
        end the thread; wait for it at most ``wait`` seconds (None: as long as it takes)."""
        if last is not None:
            self.submit(last)
        with self._changed:
            self._closing = True
            self._changed.notify_all()
        if not self.current:
            self._thread.join(wait)

    def _run(self) -> None:
        while True:
            with self._changed:
                self._changed.wait_for(lambda: self._jobs or self._closing)
                if not self._jobs:
                    return  # closing, and nothing left
                job = self._jobs.popleft()
                self._busy = True
                self._started = time.monotonic()
            try:
                job.future.set_result(job.function(*job.args))
            except Exception as exc:  # handed to whoever holds the future
                job.future.set_exception(exc)
            finally:
                with self._changed:
                    now = time.monotonic()
                    if self._started is not None:
                        self.typical = 0.8 * self.typical + 0.2 * (now - self._started)
                    self.answered_at = now
                    self._busy = False
                    self._started = None
                    self._changed.notify_all()
