"""A listwise reranker over the LLM port: the model reads every candidate and orders them.

Why listwise: a reply that answers the question ("Yes!! We called him
Pixel") is recognisable only next to the question and its neighbours, which a
model sees when all candidates are in one prompt. Each candidate is shown with
a number, its speaker, role and date; the model answers one JSON object
``{"order": [3, 1, ...]}`` (candidate numbers, most useful first), validated
here: numbers out of range or repeated make the whole answer malformed.
Candidates the model leaves out keep their relative order after the ones it
placed.

It fails soft: a provider failure, a non-JSON answer or a malformed order
keeps the input order and logs ``rerank_failed`` with the underlying reason
code (never the prompt or the answer, which hold memory text). A search never
fails because of its reranker.
"""

import logging
from collections.abc import Sequence

import msgspec

from application.ports.llm import LanguageModel, generate_structured
from application.ports.rerank import RerankCandidate, RerankScore, input_order_scores
from domain.errors import TesseraError
from domain.reasons import ReasonCode

__all__ = ["LLMListwiseReranker"]

_log = logging.getLogger("tessera.rerank")

#: characters of one candidate shown to the model (turns are short; documents are cut)
_MAX_CHARS = 600

_SYSTEM = (
    "You rank passages from a person's memory by how well each helps answer a question. "
    "A passage may be a short reply whose meaning depends on the turn before it. "
    "Answer only with JSON: the candidate numbers, most useful first."
)


class _Order(msgspec.Struct, frozen=True, kw_only=True):
    order: list[int]


def _line(number: int, cand: RerankCandidate) -> str:
    who = cand.speaker or cand.role or "unknown"
    when = cand.day.isoformat() if cand.day else "undated"
    text = " ".join(cand.text.split())[:_MAX_CHARS]
    return f"[{number}] ({when}, {who}) {text}"


def prompt_for(query: str, candidates: Sequence[RerankCandidate]) -> str:
    """The user prompt: the question, then one numbered line per candidate."""
    lines = "\n".join(_line(i + 1, c) for i, c in enumerate(candidates))
    return (
        f"Question: {query}\n\nCandidates:\n{lines}\n\n"
        f'Return {{"order": [...]}} with candidate numbers 1 to {len(candidates)}, '
        "most useful first; leave out candidates that do not help."
    )


class LLMListwiseReranker:
    def __init__(self, llm: LanguageModel, *, max_tokens: int = 512) -> None:
        self._llm = llm
        self._max_tokens = max_tokens

    @property
    def name(self) -> str:
        return "llm"

    async def rerank(self, query: str, candidates: Sequence[RerankCandidate]) -> list[RerankScore]:
        if len(candidates) < 2:
            return input_order_scores(candidates)
        try:
            answer = await generate_structured(
                self._llm,
                _Order,
                prompt_for(query, candidates),
                system=_SYSTEM,
                max_tokens=self._max_tokens,
            )
        except TesseraError as exc:
            return self._fallback(candidates, exc.reason)
        except Exception as exc:  # an outside adapter's own failure: still never a 500
            _log.warning(
                "rerank_failed: %s raised %s; kept the ranker's order",
                self._llm.model,
                type(exc).__name__,
            )
            return input_order_scores(candidates)
        order = answer.order
        if len(set(order)) != len(order) or any(not 1 <= n <= len(candidates) for n in order):
            return self._fallback(candidates, ReasonCode.LLM_BAD_OUTPUT)
        return _scores(candidates, [n - 1 for n in order], self._llm.model)

    def _fallback(
        self, candidates: Sequence[RerankCandidate], reason: ReasonCode
    ) -> list[RerankScore]:
        _log.warning(
            "%s: %s answered %s; kept the ranker's order",
            ReasonCode.RERANK_FAILED,
            self._llm.model,
            reason,
        )
        return input_order_scores(candidates)


def _scores(
    candidates: Sequence[RerankCandidate], placed: list[int], model: str
) -> list[RerankScore]:
    """Placed candidates score above every unplaced one; each group keeps its order."""
    count = len(candidates)
    rest = [i for i in range(count) if i not in set(placed)]
    out = [
        RerankScore(
            item_id=candidates[i].item_id,
            score=float(2 * count - p),
            reasons=[f"{model} placed it {p + 1} of {len(placed)}"],
        )
        for p, i in enumerate(placed)
    ]
    out.extend(
        RerankScore(
            item_id=candidates[i].item_id,
            score=float(count - p),
            reasons=[f"{model} left it out"],
        )
        for p, i in enumerate(rest)
    )
    return out
