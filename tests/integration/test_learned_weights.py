"""The shipped ranker weights are what the refit command gives on the development chats.

``python -m benchmarks.ranker_fit --write`` records every question's candidates
through the ranked path (REALTALK's development chats and the fixture's
development split) and fits the weights; this test does the same and compares
(to 0.01: the embedding runtime may differ in the last digits between machines).
Skipped, saying why, where the data is absent.
"""

from pathlib import Path

import pytest

from benchmarks.ranker_fit import DATA, FIXTURE, collect, fit, model_of
from domain.ranking.learned_weights import LEARNED

REALTALK = DATA / "realtalk" / "realtalk_dev.json.xz"

pytestmark = pytest.mark.skipif(
    not REALTALK.exists(), reason=f"the REALTALK development chats are not at {REALTALK}"
)


async def test_the_shipped_weights_are_what_the_refit_command_gives() -> None:
    examples = await collect([Path(REALTALK), FIXTURE])
    refit = model_of(fit(examples)).weights
    assert set(refit) == set(LEARNED.weights)
    apart = {f: (refit[f], LEARNED.weights[f]) for f in refit}
    assert all(abs(a - b) <= 0.01 for a, b in apart.values()), apart
