from pathlib import Path

import pytest

from adapters.system.ids import TimeOrderedIds
from domain.errors import (
    ConflictError,
    InvalidInputError,
    NotFoundError,
    StoreUnavailableError,
    UpstreamError,
)
from domain.reasons import ReasonCode
from entrypoints.errors import exit_code_for, status_for
from entrypoints.settings import EmbedderKind, IndexKind, SettingsError, load_settings


def test_defaults_are_offline_embedded_and_local(tmp_path: Path) -> None:
    s = load_settings({"XDG_DATA_HOME": str(tmp_path)})
    assert s.data_dir == tmp_path / "tessera"
    assert s.db_url == f"surrealkv://{tmp_path / 'tessera' / 'db'}"
    assert s.embedder is EmbedderKind.ONNX
    assert s.index is IndexKind.INPROCESS
    assert (s.host, s.port) == ("127.0.0.1", 8765)


def test_environment_overrides(tmp_path: Path) -> None:
    s = load_settings(
        {
            "TESSERA_DATA_DIR": str(tmp_path),
            "TESSERA_DB_URL": "mem://",
            "TESSERA_PORT": "9000",
            "TESSERA_INDEX": "Surreal",
            "TESSERA_EMBEDDER": "openai",
            "OPENAI_API_KEY": "k",
        }
    )
    assert (s.db_url, s.port, s.index, s.embedder_api_key) == (
        "mem://",
        9000,
        IndexKind.SURREAL,
        "k",
    )
    assert s.url_kind == "mem"


@pytest.mark.parametrize(
    "env",
    [
        {"TESSERA_PORT": "abc"},
        {"TESSERA_PORT": "70000"},
        {"TESSERA_DB_URL": "postgres://x"},
        {"TESSERA_EMBEDDER": "word2vec"},
        {"TESSERA_INDEX": "faiss"},
    ],
)
def test_bad_settings_name_the_variable(env: dict[str, str]) -> None:
    with pytest.raises(SettingsError, match=next(iter(env))):
        load_settings(env)


def test_ids_are_unique_sortable_and_url_safe() -> None:
    gen = TimeOrderedIds()
    ids = [gen.new_id() for _ in range(5000)]
    assert ids == sorted(ids) and len(set(ids)) == len(ids)
    assert all(len(i) == 26 and i.isalnum() and i.islower() for i in ids if not i.isdigit())


def test_error_table() -> None:
    assert status_for(InvalidInputError(ReasonCode.EMPTY_CONTENT, "")) == 422
    assert status_for(InvalidInputError(ReasonCode.CONTENT_TOO_LARGE, "")) == 413
    assert status_for(NotFoundError(ReasonCode.NOT_FOUND, "")) == 404
    assert status_for(ConflictError(ReasonCode.EMBEDDER_MISMATCH, "")) == 409
    assert status_for(StoreUnavailableError(ReasonCode.STORE_LOCKED, "")) == 503
    assert status_for(UpstreamError(ReasonCode.EMBEDDER_FAILED, "")) == 502
    assert exit_code_for(InvalidInputError(ReasonCode.EMPTY_CONTENT, "")) == 2
    assert exit_code_for(StoreUnavailableError(ReasonCode.STORE_LOCKED, "")) == 3
    assert exit_code_for(UpstreamError(ReasonCode.EMBEDDER_FAILED, "")) == 1


def test_the_slow_request_threshold_is_a_whole_number_of_ms() -> None:
    assert load_settings({"TESSERA_DATA_DIR": "/tmp/x"}).slow_request_ms == 1000
    env = {"TESSERA_DATA_DIR": "/tmp/x", "TESSERA_SLOW_REQUEST_MS": "250"}
    assert load_settings(env).slow_request_ms == 250
    with pytest.raises(SettingsError):
        load_settings({"TESSERA_DATA_DIR": "/tmp/x", "TESSERA_SLOW_REQUEST_MS": "fast"})
