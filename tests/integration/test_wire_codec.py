"""The fast wire codec gives the SDK codec's bytes and values, or hands over to it."""

import math
import uuid
from datetime import UTC, datetime, timedelta, timezone
from decimal import Decimal
from typing import Any

import cbor2
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from surrealdb import RecordID, Table
from surrealdb.data import cbor as sdk
from surrealdb.data.types.null import Null

from adapters.surreal import wire_codec
from adapters.surreal.wire_codec import decode, encode, use_fast_wire_codec

_zones = st.sampled_from([None, UTC, timezone(timedelta(hours=5, minutes=30))])
_ids = st.one_of(st.text(max_size=8), st.integers(-(2**63), 2**63 - 1))
_scalars = st.one_of(
    st.none(),
    st.booleans(),
    # past SurrealDB's signed 64 bits too: the SDK refuses those
    st.integers(-(2**65), 2**65),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=20),
    st.binary(max_size=20),
    st.datetimes(timezones=_zones),
    st.builds(RecordID, st.sampled_from(["chunk", "source"]), _ids),
    st.builds(Table, st.sampled_from(["chunk", "episode"])),
    st.frozensets(st.integers(0, 9), max_size=3),
    # values the fast path leaves to the SDK
    st.just(Null),
    st.builds(Decimal, st.integers(-1000, 1000)),
    st.uuids(),
)
_values = st.recursive(
    _scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.tuples(inner, inner),
        st.dictionaries(st.text(max_size=6), inner, max_size=4),
    ),
    max_leaves=12,
)


def _outcome(function: Any, value: Any) -> tuple[str, Any]:
    try:
        return "value", function(value)
    except Exception as exc:
        return "error", type(exc)


def _decoded_alike(data: bytes) -> bool:
    """The same values and types as the SDK's decoder gives, or the same error."""
    (fast, a), (theirs, b) = _outcome(decode, data), _outcome(sdk.decode, data)
    return fast == theirs and (a is b if fast == "error" else _same(a, b))


def _same(a: Any, b: Any) -> bool:
    """Equal, and of the same types all the way down (``Null`` is not ``None``)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, float) and math.isnan(a):
        return math.isnan(b)
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b)


@settings(max_examples=400, deadline=None)
@given(_values)
def test_a_request_encodes_to_the_sdks_bytes_or_fails_as_it_does(value: Any) -> None:
    request = {"id": "1", "method": "query", "params": ["RETURN $v", {"v": value}]}
    assert _outcome(encode, request) == _outcome(sdk.encode, request)


@settings(max_examples=400, deadline=None)
@given(_values)
def test_an_answer_decodes_to_the_sdks_values(value: Any) -> None:
    try:
        data = sdk.encode({"id": "1", "result": [{"result": value, "status": "OK"}]})
    except (TypeError, ValueError):
        return  # nothing the engine could have sent
    assert _decoded_alike(data)


_engine_tags = st.one_of(
    st.none().map(lambda _: cbor2.CBORTag(6, None)),
    st.tuples(st.integers(0, 2**40), st.integers(0, 999_999_999)).map(
        lambda t: cbor2.CBORTag(12, list(t))
    ),
    st.tuples(st.integers(0, 2**40), st.integers(0, 999_999_999)).map(
        lambda t: cbor2.CBORTag(14, list(t))
    ),
    st.uuids().map(lambda u: cbor2.CBORTag(37, u.bytes)),
    st.integers(-(10**6), 10**6).map(lambda n: cbor2.CBORTag(10, str(n))),
    st.tuples(st.text(max_size=5), _ids).map(lambda t: cbor2.CBORTag(8, list(t))),
    st.text(max_size=5).map(lambda name: cbor2.CBORTag(7, name)),
    st.lists(st.integers(0, 9), max_size=3).map(lambda xs: cbor2.CBORTag(56, xs)),
    st.text(max_size=12),
)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.dictionaries(st.text(max_size=6), _engine_tags, max_size=4), max_size=4))
def test_the_engines_tags_decode_as_the_sdk_decodes_them(rows: list[dict[str, Any]]) -> None:
    data = cbor2.dumps({"id": "1", "result": [{"result": rows, "status": "OK"}]})
    assert _decoded_alike(data)


def test_none_goes_as_surreals_none_and_null_as_cbor_null() -> None:
    assert encode(None) == sdk.encode(None) == b"\xc6\xf6"
    assert decode(b"\xc6\xf6") is None
    assert decode(b"\xf6") is Null


def test_an_answer_the_sdk_cannot_read_fails_with_the_sdks_error() -> None:
    unknown_tag = cbor2.dumps(cbor2.CBORTag(4242, "x"))
    with pytest.raises(Exception) as fast:
        decode(unknown_tag)
    with pytest.raises(Exception) as theirs:
        sdk.decode(unknown_tag)
    assert type(fast.value) is type(theirs.value)


def test_installed_once_where_the_embedded_connection_reads_its_codec() -> None:
    from surrealdb.connections import async_embedded
    from surrealdb.request_message.descriptors import cbor_ws

    use_fast_wire_codec()
    installed = (vars(cbor_ws)["encode"], vars(async_embedded)["decode"])
    use_fast_wire_codec()
    assert (vars(cbor_ws)["encode"], vars(async_embedded)["decode"]) == installed
    assert installed[0] is not sdk.encode and installed[1] is not sdk.decode
    value = {"at": datetime(2024, 1, 2, tzinfo=UTC), "id": RecordID("chunk", uuid.uuid4().hex)}
    assert installed[0](value) == sdk.encode(value)
    assert wire_codec.__name__ == "adapters.surreal.wire_codec"


async def test_a_store_round_trips_through_the_engine_with_the_fast_codec() -> None:
    from adapters.surreal.connection import SurrealConnection

    connection = SurrealConnection("mem://")
    await connection.open()
    try:
        rows = await connection.query(
            None,
            "RETURN {a: $a, b: $b, c: NONE, d: NULL, e: $e, f: <datetime> '2024-01-02T03:04:05Z'};",
            {"a": "text", "b": [1, 2.5, None], "e": RecordID("chunk", "x1")},
            operation="the codec's round trip",
        )
    finally:
        await connection.close()
    row = rows[-1]
    assert row["a"] == "text"
    assert row["b"] == [1, 2.5, None]
    assert "c" not in row or row["c"] is None
    assert row["d"] is Null
    assert row["e"] == RecordID("chunk", "x1")
    assert row["f"] == datetime(2024, 1, 2, 3, 4, 5, tzinfo=UTC)


def test_an_answer_with_null_and_none_beside_a_vectors_bytes_reads_as_the_sdk_reads_it() -> None:
    vector = bytes(range(256)) * 6  # holds 0xF6, as a vector's floats often do
    rows = [{"vec": vector, "gone": cbor2.CBORTag(6, None), "null": None, "ids": [None, 1]}]
    data = cbor2.dumps({"id": "1", "result": [{"result": rows, "status": "OK"}]})
    fast = decode(data)
    assert _same(fast, sdk.decode(data))
    row = fast["result"][0]["result"][0]
    assert row["gone"] is None and row["null"] is Null and row["ids"] == [Null, 1]
