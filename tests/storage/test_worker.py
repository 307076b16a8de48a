"""The database thread (issue 22 item 4): requests run in order on one thread, a newer
save replaces the one still waiting, and ``settle`` waits for what is queued."""

from __future__ import annotations

import threading

import pytest

from ikgui.storage.worker import DatabaseThread


def test_requests_run_in_order_on_one_thread_and_a_newer_save_replaces_a_waiting_one() -> None:
    worker = DatabaseThread()
    gate = threading.Event()
    ran: list[tuple[str, int]] = []
    try:
        blocked = worker.submit(gate.wait)  # the server does not answer
        first = worker.submit(lambda: ran.append(("save 1", threading.get_ident())), key="r")
        other = worker.submit(lambda: ran.append(("other", threading.get_ident())))
        newest = worker.submit(lambda: ran.append(("save 2", threading.get_ident())), key="r")
        assert not worker.idle
        assert first.result(timeout=10) is None and not ran  # dropped, never run
        gate.set()
        worker.settle()
        assert worker.idle and blocked.done() and other.done() and newest.done()
        assert [what for what, _ in ran] == ["other", "save 2"]
        assert {thread for _, thread in ran} == {worker._thread.ident}
        assert threading.get_ident() not in {thread for _, thread in ran}
    finally:
        gate.set()
        worker.close()


def test_a_failure_reaches_the_future_and_the_thread_goes_on() -> None:
    worker = DatabaseThread()
    try:
        failed = worker.submit(lambda: 1 / 0)
        with pytest.raises(ZeroDivisionError):
            failed.result(timeout=10)
        assert worker.submit(lambda: 42).result(timeout=10) == 42
    finally:
        closed: list[int] = []
        worker.close(lambda: closed.append(threading.get_ident()))
    assert closed and closed[0] != threading.get_ident()
    with pytest.raises(RuntimeError):
        worker.submit(lambda: None)
