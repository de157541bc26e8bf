"""Search queries run in int8 arithmetic by default; one setting puts them back in float32."""

from pathlib import Path

import pytest

from adapters.embedders.onnx_minilm import OnnxEmbedder
from entrypoints.container import _embedder
from entrypoints.settings import QueryPrecision, SettingsError, load_settings


def test_int8_by_default_and_float32_by_setting(tmp_path: Path) -> None:
    settings = load_settings({"TESSERA_DATA_DIR": str(tmp_path)})
    assert settings.query_precision is QueryPrecision.INT8
    default = _embedder(settings)
    assert isinstance(default, OnnxEmbedder) and default.query_int8
    exact = _embedder(
        load_settings({"TESSERA_DATA_DIR": str(tmp_path), "TESSERA_QUERY_PRECISION": "float32"})
    )
    assert isinstance(exact, OnnxEmbedder) and not exact.query_int8


def test_an_unknown_value_is_refused(tmp_path: Path) -> None:
    with pytest.raises(SettingsError, match="TESSERA_QUERY_PRECISION"):
        load_settings({"TESSERA_DATA_DIR": str(tmp_path), "TESSERA_QUERY_PRECISION": "fp16"})
