"""Workspace sessions expire and end; sign-in attempts are limited per client."""

import pytest

from entrypoints.web.security import CsrfRefusedError, check_csrf
from entrypoints.web.sessions import SessionStore, SignInLimiter


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_a_session_ends_after_idling_and_after_its_lifetime() -> None:
    clock = Clock()
    store = SessionStore(clock=clock, idle_seconds=60, max_age_seconds=300)
    session = store.create("key")
    clock.now += 59
    assert store.get(session.session_id) is session  # the idle clock restarts
    clock.now += 59
    assert store.get(session.session_id) is session
    clock.now += 61
    assert store.get(session.session_id) is None
    again = store.create("key")
    for _ in range(6):
        clock.now += 55
        store.get(again.session_id)
    assert store.get(again.session_id) is None  # 330 s after sign-in: past its lifetime
    assert len(store) == 0


def test_sign_out_ends_the_session_and_ids_are_unguessable() -> None:
    store = SessionStore()
    one, two = store.create("a"), store.create("b")
    assert one.session_id != two.session_id and one.csrf_token != two.csrf_token
    assert len(one.session_id) >= 40
    store.end(one.session_id)
    assert store.get(one.session_id) is None and store.get(two.session_id) is two
    assert store.get(None) is None and store.get("") is None


def test_the_oldest_session_ends_when_the_store_is_full() -> None:
    store = SessionStore(max_sessions=2)
    first = store.create("a")
    store.create("b")
    store.create("c")
    assert store.get(first.session_id) is None and len(store) == 2


def test_failed_sign_ins_are_limited_per_client_per_window() -> None:
    clock = Clock()
    limiter = SignInLimiter(clock=clock, attempts=3, window_seconds=60)
    for _ in range(10):  # sign-ins that worked do not count
        assert limiter.allow("1.2.3.4")
    allowed = []
    for _ in range(4):
        allowed.append(limiter.allow("1.2.3.4"))
        if allowed[-1]:
            limiter.failed("1.2.3.4")
    assert allowed == [True, True, True, False]
    assert limiter.allow("5.6.7.8")  # another client has its own count
    clock.now += 59
    assert not limiter.allow("1.2.3.4")
    clock.now += 1
    assert limiter.allow("1.2.3.4")


def test_the_csrf_check_wants_this_sessions_token() -> None:
    session = SessionStore().create("k")
    check_csrf(session, session.csrf_token)
    for wrong in (None, "", "x", session.csrf_token + "x", 5):
        with pytest.raises(CsrfRefusedError):
            check_csrf(session, wrong)
