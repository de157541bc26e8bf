"""Conversation-aware recall as one switch with measured parts.

See docs/design.md#conversation-aware-recall.

Everyday two-person talk breaks three assumptions of turn-by-turn retrieval:
the answer is often the reply to the turn that matches ("Yes!! We called him
Pixel"), a short reply means little without the turn before it, and a
question names a speaker ("What does Maya ...") whose name is in no turn's
words. Each part below answers one of these; each was measured on the
conversation fixture (benchmarks/RESULTS.md), and
``ConversationRecall.off()`` restores the retrieval that came before, so
LongMemEval can be run in both arms.
"""

import msgspec

from domain.ranking.ranker import RankModel, RankWeights

__all__ = ["ConversationRecall"]


class ConversationRecall(msgspec.Struct, frozen=True, kw_only=True):
    #: windows of neighbouring turns (reading order) as a second retrieval unit; off by
    #: default: with context pooled they changed no recall figure on either fixture split
    #: and cost 1.36x the search CPU p95 (more candidates for the ranker)
    windows: bool = False
    #: turns on either side of a window's centre turn
    window_radius: int = 1
    #: the vote an episode-level signal gives each of its turns, relative to a turn's own
    #: signal: at 1.0 every turn of a matching talk outranked the best turn of any other
    episode_weight: float = 0.5
    #: where-it-sits signals (episode, neighbour, window) pool into one vote instead of adding up
    pool_context: bool = True
    #: a question naming a speaker is also searched by meaning without the name
    unnamed_vector: bool = True
    #: the spread cap counts runs of neighbouring turns, so a reply is not cut from its question
    run_spread: bool = True
    #: turns one run may hold (a question and its reply); unbounded, runs grew along a
    #: user/assistant talk and one session filled a counting question's list (LongMemEval dev)
    run_turns: int = 2
    #: runs of one episode placed before every other episode has had its turn: two runs of
    #: two turns (four at most, one more than the three single turns before); at three, the
    #: fourth run of small talk in the answer's session pushed the answer out (dev fixture
    #: ranked recall@10 0.947 -> 0.960 at two; LongMemEval dev session figures unchanged)
    spread_runs: int = 2
    #: a question asking for a list ("what pets does ...") spreads its results one per
    #: episode first, as counting questions do (a list is told piece by piece); off by
    #: default: it lowered recall@10 (dev 0.947 -> 0.944, held out 0.937 -> 0.927)
    list_spread: bool = False
    #: a matching question turn lends evidence to the reply after it (the ranker)
    reply_lending: bool = True
    #: a question's words that name a speaker count as who said it, not as its subject
    speaker_names: bool = True
    #: a preference or advice request ("can you suggest ...", "what would I enjoy") fuses
    #: as before pooling (episode weight 1.0, context not pooled): on LongMemEval dev
    #: (first 150) pooling had lowered its ndcg@5 from 0.818 to 0.735
    preference_talks: bool = True
    #: a counting or ordering question ("how many ...", "which came first") fuses as before
    #: pooling too: its answer is one mention in each of several talks, and a talk's own
    #: evidence (episode weight 1.0, not pooled) is what finds the third or fourth of them
    counting_talks: bool = True
    #: a question may name a speaker by what the talk calls them ("Kate" for ``Emi``)
    speaker_aliases: bool = True
    #: each episode may place only ``spread_runs`` runs before every other episode has had
    #: its turn; off by default with the learned ranker, whose episode evidence decides
    #: (counting and ordering questions still take one turn per episode first)
    episode_cap: bool = False
    #: the ranker scores with the weights learned on real conversations
    #: (``domain.ranking.learned_weights``) instead of the hand-set rules
    learned_ranker: bool = True
    #: other learned weights than the shipped ones (a cross-validation fold)
    model: RankModel | None = None

    def __post_init__(self) -> None:
        if self.window_radius < 1:
            raise ValueError("window_radius must be >= 1")
        if self.spread_runs < 1:
            raise ValueError("spread_runs must be >= 1")
        if self.run_turns < 1:
            raise ValueError("run_turns must be >= 1")
        if not 0.0 <= self.episode_weight <= 1.0:
            raise ValueError("episode_weight must be within [0, 1]")

    @classmethod
    def off(cls) -> "ConversationRecall":
        """Retrieval exactly as before conversation windows (the other arm of a comparison)."""
        return cls(
            windows=False,
            episode_weight=1.0,
            pool_context=False,
            unnamed_vector=False,
            run_spread=False,
            list_spread=False,
            reply_lending=False,
            speaker_names=False,
            preference_talks=False,
            counting_talks=False,
            learned_ranker=False,
            speaker_aliases=False,
            episode_cap=True,
        )

    def rank_weights(self, weights: RankWeights) -> RankWeights:
        """The ranker's conversation rules follow the switch (off: the ranker as before)."""
        return msgspec.structs.replace(
            weights,
            reply=weights.reply if self.reply_lending else 0.0,
            speaker_names=weights.speaker_names and self.speaker_names,
            aliases=weights.aliases and self.speaker_aliases,
        )

    @property
    def enabled(self) -> bool:
        return self != ConversationRecall.off()
