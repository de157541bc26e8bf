"""The in-process matrix of derived vectors the SurrealDB graph keeps: ranking and freshness."""

import numpy as np

from adapters.surreal.vector_matrix import Matrix, VectorMatrices
from application.ports.records import Vector

ROWS: list[tuple[str, str, Vector]] = [
    ("b", "private/ana", [1.0, 0.0]),
    ("a", "private/ana", [2.0, 0.0]),  # not unit length: normalised, ties with b, id first
    ("c", "project/alpha", [0.6, 0.8]),
]


def test_nearest_ranks_by_cosine_inside_the_spaces() -> None:
    matrix = Matrix(ROWS)
    hits = matrix.nearest([3.0, 0.0], 10, None)
    assert [(h.item_id, round(h.score, 4)) for h in hits] == [("a", 1.0), ("b", 1.0), ("c", 0.6)]
    assert [h.item_id for h in matrix.nearest([1.0, 0.0], 10, frozenset({"project/alpha"}))] == [
        "c"
    ]
    assert matrix.nearest([1.0, 0.0], 10, frozenset()) == []
    assert len(matrix.nearest([1.0, 0.0], 1, None)) == 1
    assert matrix.nearest([1.0, 0.0, 0.0], 10, None) == []  # another model's length
    assert Matrix([]).nearest([1.0], 10, None) == []


async def test_held_until_a_write_or_the_time_limit() -> None:
    now = [0.0]
    loads: list[int] = []
    matrices = VectorMatrices(ttl=60.0, clock=lambda: now[0])

    async def load() -> list[tuple[str, str, Vector]]:
        loads.append(1)
        return ROWS

    key = ("ns", "entity", "m")
    await matrices.get(key, load)
    await matrices.get(key, load)
    assert len(loads) == 1
    matrices.forget("other")
    await matrices.get(key, load)
    assert len(loads) == 1
    matrices.forget("ns")
    await matrices.get(key, load)
    assert len(loads) == 2
    now[0] = 61.0
    await matrices.get(key, load)
    assert len(loads) == 3


async def test_a_load_overtaken_by_a_write_is_not_kept() -> None:
    matrices = VectorMatrices()
    loads: list[int] = []

    async def racing() -> list[tuple[str, str, Vector]]:
        loads.append(1)
        matrices.forget("ns")  # a write lands while the rows are read
        return ROWS

    key = ("ns", "entity", "m")
    first = await matrices.get(key, racing)
    assert [h.item_id for h in first.nearest([1.0, 0.0], 1, None)] == ["a"]
    await matrices.get(key, racing)
    assert len(loads) == 2


def test_the_best_are_those_of_a_full_sort_ties_at_the_cut_included() -> None:
    rng = np.random.default_rng(3)
    base = rng.standard_normal((6, 4)).astype(np.float32)
    # many rows share a vector: ties straddle every cut, and go by id
    rows: list[tuple[str, str, Vector]] = [
        (f"r{(n * 37) % 101:03d}", ("private/ana", "project/alpha")[n % 2], base[n % 6].tolist())
        for n in range(101)
    ]
    matrix = Matrix(rows)
    for query in [*base.tolist(), *rng.standard_normal((10, 4)).tolist()]:
        asked = np.asarray(query, dtype=np.float32)
        scores = matrix.vectors @ (asked / float(np.linalg.norm(asked)))  # as nearest does
        for spaces in (None, frozenset({"project/alpha"}), frozenset({"gone"})):
            everything = [
                (float(scores[i]), rows[i][0])
                for i in range(len(rows))
                if spaces is None or rows[i][1] in spaces
            ]
            full = [i for _, i in sorted(everything, key=lambda x: (-x[0], x[1]))]
            for limit in (1, 3, 16, 17, 50, 200):
                got = [h.item_id for h in matrix.nearest(query, limit, spaces)]
                assert got == full[:limit], (limit, spaces)
