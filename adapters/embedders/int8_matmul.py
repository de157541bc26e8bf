"""A faster graph of the int8 MiniLM for search queries: its MatMuls in int8 arithmetic.

Why it is built this way: docs/decisions/internals.md#adaptersembeddersint8_matmulpy.
"""

from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["MatMulRewrite", "int8_matmul_graph"]

#: values per activation block; smaller is closer to float32 and slower
DEFAULT_BLOCK = 64
#: onnxruntime's MatMulNBits: 4 = int8 arithmetic, 0 = the activations' own float type
INT8_ARITHMETIC = 4


class MatMulRewrite:
    """The rewritten model and how many MatMuls it moved to int8 weights in place."""

    def __init__(self, model: bytes, rewritten: int) -> None:
        self.model = model
        self.rewritten = rewritten


def _dequantized_weight(
    producer: dict[str, Any], constants: dict[str, Any], name: str
) -> tuple[str, str] | None:
    """(int8 weight, column scale) when ``name`` is ``Mul(Cast(int8 const), const)``."""
    mul = producer.get(name)
    if mul is None or mul.op_type != "Mul":
        return None
    cast = producer.get(mul.input[0])
    if cast is None or cast.op_type != "Cast" or cast.input[0] not in constants:
        return None
    if mul.input[1] not in constants:
        return None
    return cast.input[0], mul.input[1]


def _blocks(
    weight: np.ndarray, scale: np.ndarray, block: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """MatMulNBits' inputs for ``weight`` [K, N] int8 with ``scale`` [1, N], or None.

    MatMulNBits holds the weights transposed, unsigned with a zero point, in
    blocks along K, each block with its own scale; one scale per column is every
    block of that column sharing it, so the weights are the same numbers."""
    if weight.dtype != np.int8 or weight.ndim != 2:
        return None
    k, n = weight.shape
    if k % block or scale.size != n:
        return None
    per_block = k // block
    unsigned = (weight.T.astype(np.int16) + 128).astype(np.uint8).reshape(n, per_block, block)
    scales = np.repeat(scale.reshape(n, 1).astype(np.float32), per_block, axis=1)
    zero_points = np.full((n, per_block), 128, dtype=np.uint8)
    return unsigned, scales.reshape(-1), zero_points.reshape(-1)


def _live(nodes: list[Any], outputs: set[str]) -> list[Any]:
    """``nodes`` less those whose results nothing reads: the dequantizing Cast/Mul
    pairs the rewrite left behind (folded, they would hold float32 copies)."""
    while True:
        read = {name for node in nodes for name in node.input} | outputs
        kept = [node for node in nodes if any(out in read for out in node.output)]
        if len(kept) == len(nodes):
            return kept
        nodes = kept


def int8_matmul_graph(
    model_path: Path, block: int = DEFAULT_BLOCK, accuracy_level: int = INT8_ARITHMETIC
) -> MatMulRewrite:
    """``model_path``'s graph with every int8-weight MatMul as an 8-bit MatMulNBits.

    A MatMul whose weight is not a dequantized int8 constant (or whose inner
    dimension ``block`` does not divide) is left as it is; ``rewritten`` is 0 for
    a float32 model, and the caller keeps the original graph then."""
    import onnx
    from onnx import helper, numpy_helper

    model = onnx.load(str(model_path))
    graph = model.graph
    constants = {init.name: init for init in graph.initializer}
    producer = {out: node for node in graph.node for out in node.output}
    nodes = []
    rewritten = 0
    for node in graph.node:
        found = (
            _dequantized_weight(producer, constants, node.input[1])
            if node.op_type == "MatMul"
            else None
        )
        parts = None
        if found is not None:
            weight_name, scale_name = found
            parts = _blocks(
                numpy_helper.to_array(constants[weight_name]),
                numpy_helper.to_array(constants[scale_name]),
                block,
            )
        if parts is None:
            nodes.append(node)
            continue
        unsigned, scales, zero_points = parts
        n, _, _ = unsigned.shape
        stem = f"int8_matmul_{rewritten}"
        graph.initializer.extend(
            [
                numpy_helper.from_array(unsigned, f"{stem}_weight"),
                numpy_helper.from_array(scales, f"{stem}_scales"),
                numpy_helper.from_array(zero_points, f"{stem}_zero_points"),
            ]
        )
        nodes.append(
            helper.make_node(
                "MatMulNBits",
                [node.input[0], f"{stem}_weight", f"{stem}_scales", f"{stem}_zero_points"],
                list(node.output),
                domain="com.microsoft",
                K=unsigned.shape[1] * block,
                N=n,
                bits=8,
                block_size=block,
                accuracy_level=accuracy_level,
            )
        )
        rewritten += 1
    if rewritten:
        del graph.node[:]
        graph.node.extend(_live(nodes, {out.name for out in graph.output}))
        read = {name for node in graph.node for name in node.input}
        unread = [init for init in graph.initializer if init.name not in read]
        for init in unread:  # the int8 weights now held, transposed, by MatMulNBits
            graph.initializer.remove(init)
        if not any(op.domain == "com.microsoft" for op in model.opset_import):
            model.opset_import.append(helper.make_opsetid("com.microsoft", 1))
    return MatMulRewrite(model.SerializeToString(), rewritten)
