import pytest

from domain.errors import (
    ConflictError,
    InvalidInputError,
    NotFoundError,
    StoreUnavailableError,
    TesseraError,
    UpstreamError,
)
from domain.reasons import ReasonCode


@pytest.mark.parametrize(
    "kind", [InvalidInputError, NotFoundError, ConflictError, StoreUnavailableError, UpstreamError]
)
def test_every_failure_carries_its_reason_and_detail(kind: type[TesseraError]) -> None:
    error = kind(ReasonCode.NOT_FOUND, "source s1 does not exist")
    assert isinstance(error, TesseraError)
    assert error.reason is ReasonCode.NOT_FOUND
    assert error.detail == "source s1 does not exist"
    assert str(error) == "not_found: source s1 does not exist"


def test_reason_codes_are_stable_snake_case_strings() -> None:
    values = [code.value for code in ReasonCode]
    assert len(values) == len(set(values))
    assert all(v == v.lower() and " " not in v for v in values)
    # the policy codes from docs/design.md#policy exist from the start
    for code in ("missing_actor", "delegation_expired", "scope_disabled", "hidden_source"):
        assert ReasonCode(code).value == code
