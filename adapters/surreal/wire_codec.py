"""The SDK's wire codec through cbor2's C extension: the same bytes, a few times faster.

The SDK encodes every request and decodes every answer of the embedded engine
with a pure-Python copy of cbor2. ``use_fast_wire_codec`` puts two functions in
its place that give the same bytes and the same values, and hand anything they
cannot match exactly to the SDK's own codec:

- A request whose values are all plain (dicts, lists, text, bytes, numbers,
  booleans, ``None``, datetimes, record ids, tables, sets) is rewritten into
  cbor2's own tags (``None`` is SurrealDB's NONE, tag 6, as the SDK sends it)
  and encoded in C. Any other value (another SDK type, a subclass, an integer
  the engine cannot hold) sends the whole request through the SDK's encoder,
  which encodes it or refuses it as before.
- An answer is decoded in C, each SurrealDB tag by the SDK's own tag decoder.
  CBOR null is the SDK's ``Null`` and cbor2's ``None``: an answer that may
  hold one (the byte 0xF6 anywhere, as a vector's bytes often do) is decoded
  with NONE marked, then walked to put ``None`` and ``Null`` where the SDK
  does; one holding values the walk cannot vouch for (an SDK type holding
  other values) is decoded by the SDK as before.

Why and what it saves: docs/decisions/internals.md#adapterssurrealwire_codecpy.
"""

from collections.abc import Callable
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any
from uuid import UUID

from cbor2 import CBORTag, dumps, loads
from surrealdb import RecordID, Table
from surrealdb.data import cbor as sdk_cbor
from surrealdb.data.types.datetime import PreciseDatetime
from surrealdb.data.types.null import Null

__all__ = ["decode", "encode", "use_fast_wire_codec"]

#: SurrealDB's tags (the SDK's ``surrealdb.data.types.constants``)
_TAG_NONE = 6
_TAG_TABLE = 7
_TAG_RECORD_ID = 8
_TAG_SET = 56

_I64_MIN = -(2**63)
_I64_MAX = 2**63 - 1

_CBOR_NULL = b"\xf6"


#: SurrealDB's NONE, as the SDK sends ``None``
_NONE = CBORTag(_TAG_NONE, None)


class _NotPlain(Exception):
    """A value the fast encoder does not take: the SDK's encoder gets the request."""


def _text_keyed(
    value: dict[Any, Any], each: Callable[[Any], Any], refused: type[Exception]
) -> dict[str, Any]:
    """A map of text keys with ``each`` of its values; ``refused`` for any other key."""
    out = {}
    for key, item in value.items():
        if type(key) is not str:
            raise refused
        out[key] = each(item)
    return out


def _plain(value: Any) -> Any:
    """``value`` with SurrealDB's values as cbor2 tags; raises ``_NotPlain`` otherwise."""
    kind = type(value)
    if kind is str or kind is bytes or kind is float or kind is bool:
        return value
    if value is None:
        return _NONE
    if kind is int:
        if not _I64_MIN <= value <= _I64_MAX:
            raise _NotPlain  # the SDK refuses it, with its own message
        return value
    if kind is dict:
        return _text_keyed(value, _plain, _NotPlain)
    if kind is list or kind is tuple:
        return [_plain(item) for item in value]
    if kind is datetime:
        return value
    if kind is RecordID:
        return CBORTag(_TAG_RECORD_ID, [value.table_name, _plain(value.id)])
    if kind is Table:
        return CBORTag(_TAG_TABLE, value.table_name)
    if kind is set or kind is frozenset:
        return CBORTag(_TAG_SET, [_plain(item) for item in value])
    raise _NotPlain


def _encoder(sdk_encode: Callable[[Any], bytes]) -> Callable[[Any], bytes]:
    def encode(obj: Any) -> bytes:
        try:
            plain = _plain(obj)
        except _NotPlain:
            return sdk_encode(obj)
        # naive datetimes as UTC, as the SDK's encoder is told
        return dumps(plain, timezone=UTC)

    return encode


class _NoneSeen:
    """SurrealDB's NONE as decoded where an answer may also hold CBOR null (``None``)."""


_NONE_SEEN = _NoneSeen()

#: what an answer's values may be, past dicts and lists, for the fast path to hand them
#: on as they are; any other (an SDK type that holds values) sends it to the SDK's decoder
_LEAVES = frozenset({str, bytes, int, float, bool, datetime, PreciseDatetime, UUID, Decimal, Table})


class _NotExact(Exception):
    """An answer whose nulls the fast path cannot restore exactly."""


def _decoder(
    sdk_decode: Callable[[bytes], Any], sdk_tag: Callable[[Any, Any], Any]
) -> Callable[[bytes], Any]:
    def restore(value: Any) -> Any:
        """NONE back to ``None`` and CBOR null to the SDK's ``Null``."""
        if value is None:
            return Null
        if value is _NONE_SEEN:
            return None
        kind = type(value)
        if kind is dict:
            return _text_keyed(value, restore, _NotExact)
        if kind is list:
            return [restore(item) for item in value]
        if kind is RecordID and type(value.id) in (str, int):
            return value
        if kind in _LEAVES:
            return value
        raise _NotExact

    def plain_tag(decoder: Any, tagged: Any) -> Any:
        return None if tagged.tag == _TAG_NONE else sdk_tag(decoder, tagged)

    def marking_tag(decoder: Any, tagged: Any) -> Any:
        return _NONE_SEEN if tagged.tag == _TAG_NONE else sdk_tag(decoder, tagged)

    def decode(data: bytes) -> Any:
        try:
            if _CBOR_NULL not in data:  # no null: NONE is None, nothing to restore
                return loads(data, tag_hook=plain_tag)
            return restore(loads(data, tag_hook=marking_tag))
        except Exception:  # the SDK's decoder reads it, or raises its own error
            return sdk_decode(data)

    return decode


def encode(obj: Any) -> bytes:
    """A request's bytes, as ``surrealdb.data.cbor.encode`` gives them."""
    return _encoder(sdk_cbor.encode)(obj)


def decode(data: bytes) -> Any:
    """An answer's value, as ``surrealdb.data.cbor.decode`` gives it."""
    return _decoder(sdk_cbor.decode, sdk_cbor.tag_decoder)(data)


def use_fast_wire_codec() -> None:
    """Put the fast codec where the SDK's embedded connection reads its own; the SDK's
    functions stay the fallback. Idempotent: called as each store connects."""
    from surrealdb.connections import async_embedded
    from surrealdb.request_message.descriptors import cbor_ws

    # the SDK's modules look these names up at each call
    if vars(cbor_ws)["encode"] is sdk_cbor.encode:
        vars(cbor_ws)["encode"] = _encoder(sdk_cbor.encode)
    if vars(async_embedded)["decode"] is sdk_cbor.decode:
        vars(async_embedded)["decode"] = _decoder(sdk_cbor.decode, sdk_cbor.tag_decoder)
