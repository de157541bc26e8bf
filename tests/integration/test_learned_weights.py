"""The shipped ranker weights are what the refit command gives on the development data.

``python -m benchmarks.ranker_fit --write`` records every question's candidates
through the ranked path (REALTALK's development chats, the fixture's
development split and the first LongMemEval development questions) and fits
the weights; these tests do the same and compare (to 0.01: the embedding
runtime may differ in the last digits between machines).

LongMemEval's haystacks are about 80,000 chunks, an hour of embedding on two
cores, so their part needs the vectors ``benchmarks.longmemeval_prefill``
caches. Where they are not cached the chats alone are refitted and compared
with the chats' fit the same command records (``chat_fit.json``): a change to
the features or the ranked path that the weights were not refitted for fails
there too. Each test is skipped, saying why, where its data is absent.
"""

import asyncio
import json

import pytest

from benchmarks.ranker_fit import (
    CHAT_FIT,
    DATA,
    LME,
    LME_LIMIT,
    Example,
    Source,
    collect,
    fit,
    model_of,
    training_sources,
    uncached,
)
from domain.ranking.learned_weights import LEARNED

REALTALK = DATA / "realtalk" / "realtalk_dev.json.xz"

pytestmark = pytest.mark.skipif(
    not REALTALK.exists(), reason=f"the REALTALK development chats are not at {REALTALK}"
)


def _sources() -> list[Source]:
    return training_sources(REALTALK, None, LME, LME_LIMIT if LME.exists() else 0)


@pytest.fixture(scope="module")
def chat_examples() -> list[Example]:
    chats = [s for s in _sources() if s.vectors is None]
    return asyncio.run(collect(chats))


def _agree(refit: dict[str, float], shipped: dict[str, float]) -> None:
    assert set(refit) == set(shipped)
    apart = {f: (refit[f], shipped[f]) for f in refit}
    assert all(abs(a - b) <= 0.01 for a, b in apart.values()), apart


def test_the_chats_refit_is_the_one_recorded(chat_examples: list[Example]) -> None:
    recorded = json.loads(CHAT_FIT.read_text(encoding="utf-8"))
    assert recorded["sources"] == [s.name for s in _sources() if s.vectors is None]
    _agree(model_of(fit(chat_examples)).weights, recorded["weights"])


def test_the_shipped_weights_are_what_the_refit_command_gives(
    chat_examples: list[Example],
) -> None:
    if not LME.exists():
        pytest.skip(f"the LongMemEval development questions are not at {LME}")
    (lme,) = [s for s in _sources() if s.vectors is not None]
    missing = uncached(lme)
    if missing:
        pytest.skip(
            f"{missing} LongMemEval chunks have no cached vector: "
            f"python -m benchmarks.longmemeval_prefill --limit {LME_LIMIT}"
        )
    examples = chat_examples + asyncio.run(collect([lme]))
    _agree(model_of(fit(examples)).weights, LEARNED.weights)
