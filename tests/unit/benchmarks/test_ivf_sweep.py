"""The sweep's exact top 10 (blockwise over a mapped matrix) and its recall count."""

import numpy as np

from benchmarks.ivf_sweep import _exact, _recall


def test_the_blockwise_top_ten_is_the_whole_matrix_top_ten() -> None:
    rng = np.random.default_rng(4)
    vectors = rng.normal(size=(2_345, 8)).astype(np.float32)
    queries = rng.normal(size=(7, 8)).astype(np.float32)
    want = np.argsort(-(queries @ vectors.T), axis=1, kind="stable")[:, :10]
    for block in (100, 1_000, 5_000):  # blocks that split the rows, and one that does not
        assert (_exact(vectors, queries, block=block) == want).all()


def test_recall_counts_the_found_share_and_the_queries_finding_none() -> None:
    exact = np.arange(30).reshape(3, 10)
    labels = exact.copy()
    labels[1, :5] = 100 + np.arange(5)  # half found
    labels[2] = 200 + np.arange(10)  # none found
    assert _recall(labels, exact) == (round((1 + 0.5 + 0) / 3, 4), 1)
