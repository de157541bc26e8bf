"""The int8-arithmetic query graph: same weights, same answers within the stated bound.

Small hand-built graphs pin the rewrite down exactly (onnxruntime runs them);
the shipped MiniLM checks it on the real model.
"""

from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper, numpy_helper

from adapters.embedders.int8_matmul import int8_matmul_graph
from adapters.embedders.onnx_minilm import OnnxEmbedder, default_model_files
from contracts.embedder import QUERY_COSINE, cosine

RNG = np.random.default_rng(7)


def _dequantized_matmul(path: Path, k: int, n: int, int8: bool = True) -> np.ndarray:
    """A model ``y = x @ (Cast(w) * scale)`` as the shipped MiniLM writes each MatMul."""
    weight = RNG.integers(-127, 128, size=(k, n), dtype=np.int8)
    scale = RNG.uniform(0.001, 0.02, size=(1, n)).astype(np.float32)
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [None, None, k])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [None, None, n])
    if int8:
        nodes = [
            helper.make_node("Cast", ["w_q"], ["w_f"], to=TensorProto.FLOAT),
            helper.make_node("Mul", ["w_f", "w_scale"], ["w"]),
            helper.make_node("MatMul", ["x", "w"], ["y"]),
        ]
        constants = [
            numpy_helper.from_array(weight, "w_q"),
            numpy_helper.from_array(scale, "w_scale"),
        ]
    else:
        nodes = [helper.make_node("MatMul", ["x", "w"], ["y"])]
        constants = [numpy_helper.from_array(weight.astype(np.float32) * scale, "w")]
    graph = helper.make_graph(nodes, "g", [x], [y], constants)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.save(model, str(path))
    dense: np.ndarray = weight.astype(np.float32) * scale
    return dense


def _run(model: bytes | str, x: np.ndarray) -> np.ndarray:
    session = ort.InferenceSession(model, providers=["CPUExecutionProvider"])
    out: np.ndarray = session.run(None, {"x": x})[0]
    return out


def test_float_arithmetic_on_the_rewritten_graph_gives_the_same_products(tmp_path: Path) -> None:
    path = tmp_path / "m.onnx"
    dense = _dequantized_matmul(path, k=128, n=16)
    rewrite = int8_matmul_graph(path, block=64, accuracy_level=0)
    assert rewrite.rewritten == 1
    x = RNG.standard_normal((2, 5, 128)).astype(np.float32)
    np.testing.assert_allclose(_run(rewrite.model, x), x @ dense, rtol=1e-4, atol=1e-4)
    # the dequantizing nodes and the original int8 constant are gone
    kept = onnx.load_from_string(rewrite.model)
    assert [node.op_type for node in kept.graph.node] == ["MatMulNBits"]
    assert "w_q" not in {init.name for init in kept.graph.initializer}


def test_int8_arithmetic_stays_close_to_float(tmp_path: Path) -> None:
    path = tmp_path / "m.onnx"
    dense = _dequantized_matmul(path, k=384, n=32)
    x = RNG.standard_normal((1, 9, 384)).astype(np.float32)
    got = _run(int8_matmul_graph(path, block=64).model, x)
    want = x @ dense
    # int8 activations in blocks of 64: a product's error is a small share of its size
    assert np.abs(got - want).max() <= 0.02 * np.abs(want).max()
    assert not np.allclose(got, want, rtol=0, atol=1e-7), "int8 arithmetic ran in float"


def test_matmuls_it_cannot_express_are_left_alone(tmp_path: Path) -> None:
    odd = tmp_path / "odd.onnx"
    _dequantized_matmul(odd, k=100, n=8)  # 100 values do not fill blocks of 64
    assert int8_matmul_graph(odd, block=64).rewritten == 0
    plain = tmp_path / "plain.onnx"
    _dequantized_matmul(plain, k=128, n=8, int8=False)  # float32 weights
    assert int8_matmul_graph(plain, block=64).rewritten == 0


@pytest.mark.slow
def test_every_matmul_of_the_shipped_model_is_rewritten_with_its_own_weights() -> None:
    model, _ = default_model_files()
    exact = int8_matmul_graph(model, accuracy_level=0)
    # 6 layers x (query, key, value, attention output, two feed-forward)
    assert exact.rewritten == 36
    reference = OnnxEmbedder(query_int8=False)
    rewritten = OnnxEmbedder(query_int8=False)
    rewritten.embed_sync(["load"])
    rewritten._session = ort.InferenceSession(exact.model, providers=["CPUExecutionProvider"])
    texts = ["The cat sat on the mat.", "How many books did I buy in March?"]
    for a, b in zip(reference.embed_sync(texts), rewritten.embed_sync(texts), strict=True):
        assert cosine(a, b) >= 0.99999


@pytest.mark.slow
async def test_query_int8_off_embeds_queries_exactly_like_documents() -> None:
    embedder = OnnxEmbedder(query_int8=False)
    texts = ["Where did I park?", "naïve café"]
    assert await embedder.embed_queries(texts) == await embedder.embed(texts)


@pytest.mark.slow
async def test_int8_queries_differ_from_documents_within_the_contract() -> None:
    embedder = OnnxEmbedder()
    texts = ["Where did I park the car last Tuesday?", "What is my sister's favourite tea?"]
    queries, documents = await embedder.embed_queries(texts), await embedder.embed(texts)
    for query, document in zip(queries, documents, strict=True):
        assert QUERY_COSINE <= cosine(query, document) < 1.0 - 1e-7


@pytest.mark.slow
async def test_a_graph_that_fails_to_build_leaves_queries_in_float32(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    def broken(model: Path) -> None:
        raise RuntimeError("no MatMulNBits on this build")

    monkeypatch.setattr("adapters.embedders.int8_matmul.int8_matmul_graph", broken)
    embedder = OnnxEmbedder()
    texts = ["Where did I park?"]
    assert await embedder.embed_queries(texts) == await embedder.embed(texts)
    assert "queries run in float32" in caplog.text
    assert "MatMulNBits" not in caplog.text  # the exception's type, not its message


@pytest.mark.slow
async def test_the_int8_graph_is_kept_on_disk_and_a_restart_loads_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    texts = ["Where did I park the car last Tuesday?"]
    first = OnnxEmbedder(graph_cache=tmp_path / "models")
    built = await first.embed_queries(texts)
    (saved,) = (tmp_path / "models").iterdir()
    assert saved.suffix == ".onnx" and saved.stat().st_mode & 0o777 == 0o600

    def must_not_rebuild(model: Path) -> None:
        raise AssertionError("the saved graph should have been loaded")

    monkeypatch.setattr("adapters.embedders.int8_matmul.int8_matmul_graph", must_not_rebuild)
    again = OnnxEmbedder(graph_cache=tmp_path / "models")
    await again.preload()
    assert await again.embed_queries(texts) == built
