"""Fit the learned ranker's weights on real conversations, cross-validated, and write them.

    python -m benchmarks.ranker_fit [--realtalk PATH] [--fixture PATH ...]
        [--longmemeval PATH] [--lme-limit N] [--write]

The default training data: REALTALK's development chats, the made-up
fixture's development split (``benchmarks/conversations/fixture.json``) and
the first ``LME_LIMIT`` LongMemEval development questions in stratified
order (each haystack a chat, its ``has_answer`` turns the evidence:
``benchmarks._lme_chats``), whose vectors ``benchmarks.longmemeval_prefill``
caches.

Each chat is remembered through the service, as ``benchmarks.conversations``
does; every question then runs the ranked retrieval path, and the candidates
handed to the ranker are recorded with their features
(``domain.ranking.learned``) and whether each is an evidence turn. A linear
model is fitted on pairs (an evidence turn against another candidate of the
same question; logistic loss, L2), leave-one-conversation-out: each chat is
ranked by weights fitted on the others, and recall@10 of the candidates'
order is printed beside the hand-set rules'. ``--write`` fits on every chat
and writes ``domain/ranking/learned_weights.py``.
"""

import argparse
import asyncio
import json
import sys
import textwrap
import time
import uuid
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

import numpy as np

from application.enrichment.embedding import QueryVectorCache
from application.ports.records import CandidateFilter
from application.retrieval.options import ConversationRecall
from application.retrieval.pipeline import RetrievalMode, RetrievalPipeline
from benchmarks._embed_cache import CachedEmbedder, DiskEmbeddingCache
from benchmarks._lme_chats import as_chats
from benchmarks._lme_data import DEFAULT_LME, load_questions, stratified
from benchmarks._wiring import make_embedder, make_index, make_store
from benchmarks.conversations._cache import CACHE_DIR
from benchmarks.conversations._locomo import is_locomo, load_locomo
from benchmarks.conversations._run import ingest
from benchmarks.longmemeval_prefill import CACHE_DIR as LME_VECTORS
from domain.chunking import split_into_chunks
from domain.hashing import content_hash
from domain.ranking.candidate import Candidate
from domain.ranking.dates import DateWindow
from domain.ranking.learned import FEATURES, RankModel
from domain.ranking.question import QuestionProfile
from domain.ranking.ranker import RankWeights, features_of, rank_candidates

__all__ = [
    "Example",
    "Folds",
    "Source",
    "chat_fit",
    "cross_validate",
    "fit",
    "load_folds",
    "main",
    "training_sources",
    "uncached",
]

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data"
WEIGHTS_FILE = ROOT / "domain" / "ranking" / "learned_weights.py"
TABLE = ROOT / "benchmarks" / "out" / "ranker-features.json"
FIXTURE = ROOT / "benchmarks" / "conversations" / "fixture.json"
#: ``chat_fit``'s record, checked by a test wherever REALTALK is at hand
CHAT_FIT = ROOT / "benchmarks" / "conversations" / "chat_fit.json"
LME = DATA / "longmemeval" / DEFAULT_LME.name
#: LongMemEval questions learned from by default: as many as the cache of their vectors
#: holds on a machine that ran ``benchmarks.longmemeval_prefill --limit LME_LIMIT``
LME_LIMIT = 100
#: the L2 penalty on the weights (per pair, averaged): keeps a few dozen numbers tame
L2 = 1e-3
DECIMALS = 4
#: refits that weigh the pairs near the top more (``_pairs``): leave-one-conversation-out
#: recall@10 of the candidates' order 0.631 with none, 0.637 with two (top 20, x5)
ROUNDS = 2
TOP = 20
BOOST = 5.0


class Example:
    """One question's candidates: features (rows, ``FEATURES`` order) and evidence flags."""

    def __init__(
        self,
        group: str,
        rows: list[list[float]],
        gold: list[bool],
        hand: list[int],
        wanted: int,
        turns: list[int] | None = None,
    ) -> None:
        self.group = group
        self.rows = rows
        self.gold = gold
        #: the hand-set rules' order of the candidates (indices)
        self.hand = hand
        #: the question's evidence turns, found among the candidates or not
        self.wanted = wanted
        #: which evidence turn each evidence candidate is (a long turn is several chunks,
        #: and a turn counts once); each its own where not recorded
        self.turns = turns if turns is not None else list(range(len(gold)))

    def as_json(self) -> dict[str, Any]:
        return {
            "group": self.group,
            "rows": self.rows,
            "gold": self.gold,
            "hand": self.hand,
            "wanted": self.wanted,
            "turns": self.turns,
        }

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> "Example":
        return cls(d["group"], d["rows"], d["gold"], d["hand"], d["wanted"], d.get("turns"))


class Source:
    """Chats to learn from: the fixture layout, whether turns name their speakers, and where
    vectors made earlier for them are cached."""

    def __init__(
        self,
        name: str,
        data: dict[str, Any],
        named: bool = True,
        vectors: Path | None = None,
        label: str | None = None,
    ) -> None:
        self.name = name
        self.data = data
        self.named = named
        self.vectors = vectors
        #: how the weights file names it
        self.label = label or name

    @classmethod
    def read(cls, path: Path) -> "Source":
        data = (
            load_locomo(path) if is_locomo(path) else json.loads(path.read_text(encoding="utf-8"))
        )
        return cls(path.name, data)

    @classmethod
    def longmemeval(cls, path: Path, limit: int) -> "Source":
        items = stratified(load_questions(path))[:limit]
        label = f"{path.name} (its first {limit} questions in stratified order)"
        return cls(path.name, as_chats(items), named=False, vectors=LME_VECTORS, label=label)


class _Recorder:
    def __init__(self) -> None:
        self.seen: tuple[QuestionProfile, list[Candidate], DateWindow | None] | None = None

    def __call__(
        self,
        query: str,
        profile: QuestionProfile,
        candidates: Sequence[Candidate],
        window: DateWindow | None,
    ) -> None:
        self.seen = (profile, list(candidates), window)


async def collect(sources: Sequence[Source]) -> list[Example]:
    """Every question's candidates, through the ranked path at its defaults."""
    model = make_embedder()
    vectors = DiskEmbeddingCache(CACHE_DIR, model.space)
    for source in sources:
        if source.vectors is not None:
            vectors.read_also(source.vectors)
    cached = CachedEmbedder(model, vectors)
    store = make_store("mem://")
    index = make_index("inprocess", store)
    from entrypoints.container import make_service

    service = make_service(store, index, cached, RetrievalMode.RANKED)
    recorder = _Recorder()
    conversation = ConversationRecall()
    pipeline = RetrievalPipeline(
        index=index,
        query_vector=QueryVectorCache(model).vector_for,
        mode=RetrievalMode.RANKED,
        conversation=conversation,
        observe=recorder,
    )
    weights = conversation.rank_weights(RankWeights())
    examples: list[Example] = []
    started = time.perf_counter()
    try:
        for source in sources:
            data = source.data
            for talk in data["conversations"]:
                cid = talk["conversation_id"]
                group = f"{source.name}:{cid}"
                org = f"fit-{uuid.uuid4().hex[:8]}"
                turn_of = await ingest(service, org, talk, source.named)
                for q in (q for q in data["questions"] if q["conversation_id"] == cid):
                    recorder.seen = None
                    as_of = datetime.fromisoformat(q["asked_at"])
                    await pipeline.ranked(org, q["question"], 10, CandidateFilter(), as_of)
                    if recorder.seen is None:  # nothing found: the question still counts
                        examples.append(Example(group, [], [], [], 1))
                        continue
                    profile, cands, window = recorder.seen
                    values = features_of(profile, cands, window, weights)
                    gold = list(dict.fromkeys(q["evidence"]))
                    found = [
                        turn_of.get((c.episode_id, -1 if c.turn_index is None else c.turn_index))
                        for c in cands
                    ]
                    turns = [gold.index(t) if t in gold else -1 for t in found]
                    position = {c.item_id: n for n, c in enumerate(cands)}
                    by_hand = rank_candidates(profile, cands, window, weights)
                    hand = [position[r.item_id] for r in by_hand]
                    rows = [[round(v.get(f, 0.0), 6) for f in FEATURES] for v in values]
                    flags = [t >= 0 for t in turns]
                    examples.append(Example(group, rows, flags, hand, len(gold), turns))
                await service.drop_organization(org)
                print(f"{cid}: {time.perf_counter() - started:.0f}s", file=sys.stderr, flush=True)
    finally:
        await service.close()
    return examples


def _pairs(examples: Sequence[Example], w: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
    """Differences (evidence minus other) of each question's pairs, and each pair's weight:
    every question counts once, whatever its number of pairs, and with weights ``w``
    a pair whose other candidate ``w`` ranks in the first ``TOP`` counts ``BOOST`` times
    (what is in the top ten is what recall@10 reads)."""
    diffs: list[np.ndarray] = []
    weights: list[np.ndarray] = []
    for ex in examples:
        rows = np.asarray(ex.rows, dtype=np.float64)
        gold = np.asarray(ex.gold, dtype=bool)
        if not gold.any() or gold.all():
            continue
        positives = rows[gold]
        negatives = rows[~gold]
        near = np.ones(len(negatives))
        if w is not None:
            rank = np.empty(len(rows), dtype=int)
            rank[np.argsort(-(rows @ w), kind="stable")] = np.arange(len(rows))
            near = np.where(rank[~gold] < TOP, BOOST, 1.0)
        d = (positives[:, None, :] - negatives[None, :, :]).reshape(-1, rows.shape[1])
        pair = np.tile(near, len(positives))
        diffs.append(d)
        weights.append(pair / pair.sum())
    return np.vstack(diffs), np.concatenate(weights)


#: a feature the training chats never show (no derived memory, no windows) takes the
#: weight of a signal learned, rather than nothing: a leg that is on in a deployment must
#: still count. Derived legs read reviewed records, so each counts as much as the meaning
#: legs together (a turn found by meaning is found by its own and its episode's vector);
#: windows are where-it-sits evidence, as neighbours are
_MEANING = ("rank_vector", "rank_episode_vector")
KIN = {
    "rank_entity": _MEANING,
    "rank_entity_vector": _MEANING,
    "rank_graph": _MEANING,
    "rank_relation": _MEANING,
    "rank_window": ("rank_neighbour",),
}


def fit(examples: Sequence[Example]) -> np.ndarray:
    """Pairwise logistic regression by Newton's method (deterministic, no learning rate);
    features never seen take their kin's weight (``KIN``)."""
    w = _fit_pairs(examples)
    seen = np.zeros(len(FEATURES), dtype=bool)
    for ex in examples:
        if ex.rows:
            seen |= np.asarray(ex.rows).any(axis=0)
    index = {f: n for n, f in enumerate(FEATURES)}
    for feature, kin in KIN.items():
        if not seen[index[feature]]:
            w[index[feature]] = sum(w[index[k]] for k in kin)
    return w


def _fit_pairs(examples: Sequence[Example]) -> np.ndarray:
    w = _newton(*_pairs(examples, None))
    for _ in range(ROUNDS):
        w = _newton(*_pairs(examples, w))
    return np.round(w, DECIMALS)


def _newton(x: np.ndarray, sample: np.ndarray) -> np.ndarray:
    sample = sample / sample.sum()
    w = np.zeros(x.shape[1])
    for _ in range(50):
        margin = x @ w
        p = 1.0 / (1.0 + np.exp(-margin))
        grad = x.T @ (sample * (p - 1.0)) + L2 * w
        hess = (x * (sample * p * (1.0 - p))[:, None]).T @ x + L2 * np.eye(len(w))
        step = np.linalg.solve(hess, grad)
        w -= step
        if float(np.abs(step).max()) < 1e-9:
            break
    return w


def _recall(order: Sequence[int], ex: "Example", k: int = 10) -> float:
    return len({ex.turns[i] for i in order[:k] if ex.gold[i]}) / ex.wanted


def _order(ex: Example, w: np.ndarray) -> list[int]:
    if not ex.rows:
        return []
    scores = np.asarray(ex.rows) @ w
    return sorted(range(len(ex.rows)), key=lambda i: (-scores[i], i))


def cross_validate(examples: Sequence[Example]) -> dict[str, dict[str, float]]:
    """Leave one conversation out: recall@10 of the candidates' order, learned vs hand-set."""
    groups = sorted({ex.group for ex in examples})
    out: dict[str, dict[str, float]] = {}
    for group in groups:
        train = [ex for ex in examples if ex.group != group]
        held = [ex for ex in examples if ex.group == group]
        w = fit(train)
        out[group] = {
            "questions": len(held),
            "learned": float(np.mean([_recall(_order(ex, w), ex) for ex in held])),
            "hand": float(np.mean([_recall(ex.hand, ex) for ex in held])),
        }
    return out


def render(weights: np.ndarray, sources: Sequence[str]) -> str:
    lines = [
        '"""The learned ranker\'s weights, written by ``python -m benchmarks.ranker_fit --write``.',
        "",
        *textwrap.wrap("Fitted on: " + ", ".join(sources) + ".", 88),
        'Refit with the same command; a test checks that it gives these numbers."""',
        "",
        "from domain.ranking.learned import RankModel",
        "",
        '__all__ = ["LEARNED"]',
        "",
        "LEARNED = RankModel(",
        "    weights={",
        *(f'        "{f}": {w!r},' for f, w in zip(FEATURES, weights.tolist(), strict=True) if w),
        "    }",
        ")",
        "",
    ]
    return "\n".join(lines)


def model_of(weights: np.ndarray) -> RankModel:
    return RankModel(weights={f: float(w) for f, w in zip(FEATURES, weights, strict=True) if w})


class Folds:
    """Leave-one-conversation-out weights over a recorded table."""

    def __init__(self, examples: Sequence[Example]) -> None:
        self._examples = list(examples)

    def __contains__(self, group: object) -> bool:
        return any(ex.group == group for ex in self._examples)

    def model_without(self, group: str) -> RankModel:
        if group not in self:
            raise ValueError(f"{group} is not in the table: record it with ranker_fit first")
        return model_of(fit([ex for ex in self._examples if ex.group != group]))


def load_examples(table: Path) -> list[Example]:
    return [Example.from_json(d) for d in json.loads(table.read_text(encoding="utf-8"))]


def load_folds(table: Path) -> Folds:
    return Folds(load_examples(table))


def training_sources(
    realtalk: Path, fixtures: Sequence[Path] | None, lme: Path, lme_limit: int
) -> list[Source]:
    """What the weights are fitted on; the fixture's development split by default."""
    chats = [Source.read(p) for p in (realtalk, *(fixtures if fixtures is not None else [FIXTURE]))]
    return chats + ([Source.longmemeval(lme, lme_limit)] if lme_limit > 0 else [])


def _parse(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m benchmarks.ranker_fit", description=__doc__)
    p.add_argument("--realtalk", type=Path, default=DATA / "realtalk" / "realtalk_dev.json.xz")
    p.add_argument(
        "--fixture",
        type=Path,
        action="append",
        default=None,
        help="more chats to learn from (default: the fixture's development split)",
    )
    p.add_argument("--longmemeval", type=Path, default=LME, help="LongMemEval .json or .json.xz")
    p.add_argument(
        "--lme-limit",
        type=int,
        default=LME_LIMIT,
        help="its first N questions in stratified order (0: none)",
    )
    p.add_argument("--table", type=Path, default=TABLE, help="the recorded candidates")
    p.add_argument("--reuse", action="store_true", help="fit on --table as recorded")
    p.add_argument("--write", action="store_true", help="write the weights into domain/")
    return p.parse_args(argv)


def main(argv: list[str] | None = None) -> None:
    args = _parse(argv)
    sources = training_sources(args.realtalk, args.fixture, args.longmemeval, args.lme_limit)
    if args.reuse and args.table.exists():
        examples = load_examples(args.table)
    else:
        examples = asyncio.run(collect(sources))
        args.table.parent.mkdir(parents=True, exist_ok=True)
        args.table.write_text(json.dumps([ex.as_json() for ex in examples]))
    cv = cross_validate(examples)
    print("| held out | questions | hand-set recall@10 | learned recall@10 |")
    print("|---|---|---|---|")
    for source in sources:
        rows = {g: r for g, r in cv.items() if _source_of(g) == source.name}
        if source.vectors is None:  # a few chats: each apart
            for group, row in rows.items():
                print(_row(group, row["questions"], row["hand"], row["learned"]))
        if rows:
            n = sum(r["questions"] for r in rows.values())
            hand, learned = (
                sum(r[a] * r["questions"] for r in rows.values()) / n for a in ("hand", "learned")
            )
            print(_row(f"{source.name}, each alone", n, hand, learned))
    print("(candidates' order, no spread)")
    weights = fit(examples)
    for f, w in zip(FEATURES, weights.tolist(), strict=True):
        print(f"  {f:24s} {w:+.4f}")
    if args.write:
        WEIGHTS_FILE.write_text(render(weights, [s.label for s in sources]))
        chats = chat_fit(examples, sources)
        CHAT_FIT.write_text(json.dumps(chats, indent=1) + "\n")
        print(f"wrote {WEIGHTS_FILE.relative_to(ROOT)} and {CHAT_FIT.relative_to(ROOT)}")


def _row(name: str, questions: float, hand: float, learned: float) -> str:
    return f"| {name} | {questions:.0f} | {hand:.3f} | {learned:.3f} |"


def _source_of(group: str) -> str:
    return group.partition(":")[0]


def chat_fit(examples: Sequence[Example], sources: Sequence[Source]) -> dict[str, Any]:
    """The weights fitted on the sources that need no cached vectors: what a clean checkout
    can refit and compare, where the full refit needs LongMemEval's vectors cached."""
    chats = [s.name for s in sources if s.vectors is None]
    weights = fit([ex for ex in examples if _source_of(ex.group) in chats])
    return {"sources": chats, "weights": model_of(weights).weights}


def uncached(source: Source) -> int:
    """How many chunks of the source's turns its vector cache lacks (0 without a cache)."""
    if source.vectors is None:
        return 0
    cache = DiskEmbeddingCache(source.vectors, make_embedder().space)
    texts = {
        span.text
        for talk in source.data["conversations"]
        for session in talk["sessions"]
        for turn in session["turns"]
        for span in split_into_chunks(turn["text"])
    }
    return sum(1 for text in texts if content_hash(text) not in cache)


if __name__ == "__main__":
    main()
