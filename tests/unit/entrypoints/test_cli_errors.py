"""The CLI turns the service's HTTP answers back into the failures they came from."""

import json

import pytest

from domain.errors import (
    AuthenticationError,
    ConflictError,
    InvalidInputError,
    NotFoundError,
    TesseraError,
    UpstreamError,
)
from domain.reasons import ReasonCode
from entrypoints.errors import exit_code_for, status_for
from entrypoints.service_errors import error_of


def _answer(status: int, reason: ReasonCode) -> tuple[int, bytes]:
    return status, json.dumps({"error": {"reason": reason.value, "detail": "why"}}).encode()


def test_a_conflict_comes_back_as_a_conflict_and_exits_1() -> None:
    error = error_of(*_answer(409, ReasonCode.TRANSITION_NOT_ALLOWED))
    assert type(error) is ConflictError
    assert (error.reason, error.detail) == (ReasonCode.TRANSITION_NOT_ALLOWED, "why")
    assert exit_code_for(error) == 1


@pytest.mark.parametrize(
    "error",
    [
        InvalidInputError(ReasonCode.EMPTY_CONTENT, "why"),
        AuthenticationError(ReasonCode.INVALID_API_KEY, "why"),
        NotFoundError(ReasonCode.NOT_FOUND, "why"),
        ConflictError(ReasonCode.TRANSITION_NOT_ALLOWED, "why"),
        UpstreamError(ReasonCode.EMBEDDER_FAILED, "why"),
    ],
)
def test_each_failure_survives_the_round_trip_through_http(error: TesseraError) -> None:
    back = error_of(*_answer(status_for(error), error.reason))
    assert type(back) is type(error)
    assert exit_code_for(back) == exit_code_for(error)


def test_an_answer_that_is_not_an_error_body_says_its_status() -> None:
    error = error_of(502, b"<html>bad gateway</html>")
    assert type(error) is UpstreamError
    assert error.reason is ReasonCode.INTERNAL_ERROR
    assert "502" in error.detail
