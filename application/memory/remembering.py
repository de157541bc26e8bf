"""Remember: check, authorise and compose a write, then hand it to the one write path.

Kept out of ``MemoryService`` so the write use cases (one memory, or an
import's batch) sit together; the service delegates to them.
"""

from collections.abc import Awaitable, Callable, Sequence

from application.memory.commands import RememberRequest
from application.memory.results import RememberResult
from application.memory.writer import MemoryWriter
from application.ports import Clock, IdGenerator
from application.ports.writes import EmbeddingState, WaitFor
from application.trust.audit import AuditTrail
from application.trust.guard import denied, require_org, write_target
from domain.chunking import ChunkingRules
from domain.composition import compose_memory
from domain.errors import InvalidInputError, PolicyDeniedError
from domain.models import Chunk, Source
from domain.policy import MemoryPolicyContext, PolicyDecision, authorize_write
from domain.reasons import ReasonCode

__all__ = ["Remembering"]


class Remembering:
    def __init__(
        self,
        *,
        writer: MemoryWriter,
        audit: AuditTrail,
        clock: Clock,
        ids: IdGenerator,
        chunking: ChunkingRules,
        ready: Callable[[str], Awaitable[None]],
    ) -> None:
        self._writer = writer
        self._audit = audit
        self._clock = clock
        self._ids = ids
        self._chunking = chunking
        #: prepares the organisation (schema, index, lane resume) before its first write
        self._ready = ready
        #: told of each committed write's source ids (background reflection); must not wait
        self.listeners: list[Callable[[MemoryPolicyContext, list[str]], None]] = []

    async def one(self, request: RememberRequest, policy: MemoryPolicyContext) -> RememberResult:
        source, chunks, decision = self._prepare_write(request, policy)
        await self._ready(request.org_id)
        # Committed and lexically searchable before the model runs; the lane embeds the
        # chunks (a model failure no longer loses the write, it leaves them pending).
        outcome = await self._writer.write(
            request.org_id, [(source, chunks)], wait=request.wait is WaitFor.INDEXED
        )
        self._note_write(policy, decision, source, chunks)
        self._tell(policy, [source.source_id])
        return RememberResult(
            source_id=source.source_id,
            chunk_ids=[c.chunk_id for c in chunks],
            cached_embeddings=outcome.cached,
            embedding=EmbeddingState.PENDING if outcome.pending else EmbeddingState.INDEXED,
        )

    async def many(
        self,
        org_id: str,
        requests: Sequence[RememberRequest],
        policy: MemoryPolicyContext,
        *,
        tag: str | None = None,
    ) -> list[RememberResult | InvalidInputError | PolicyDeniedError]:
        """Remember a batch (an import's) in one store transaction, each request checked and
        authorised on its own: a refused one is returned as its error, the rest are written.

        Waits first while the organisation's embedding backlog is over its limit
        (backpressure); ``tag`` lets the lane count this writer's pending chunks.
        """
        require_org(policy, org_id)
        prepared: list[
            tuple[Source, list[Chunk], PolicyDecision] | InvalidInputError | PolicyDeniedError
        ] = []
        for request in requests:
            try:
                if request.org_id != org_id:
                    raise InvalidInputError(
                        ReasonCode.INVALID_REQUEST, "one batch holds one organisation's memories"
                    )
                prepared.append(self._prepare_write(request, policy))
            except (InvalidInputError, PolicyDeniedError) as exc:
                prepared.append(exc)
        writes = [p for p in prepared if isinstance(p, tuple)]
        if writes:
            await self._ready(org_id)
            outcome = await self._writer.write(
                org_id, [(s, c) for s, c, _ in writes], backpressure=True, tag=tag
            )
            for source, chunks, decision in writes:
                self._note_write(policy, decision, source, chunks)
            self._tell(policy, [s.source_id for s, _, _ in writes])
        state = EmbeddingState.PENDING if writes and outcome.pending else EmbeddingState.INDEXED
        results: list[RememberResult | InvalidInputError | PolicyDeniedError] = []
        for p in prepared:
            if isinstance(p, tuple):
                ids = [c.chunk_id for c in p[1]]
                results.append(
                    RememberResult(source_id=p[0].source_id, chunk_ids=ids, embedding=state)
                )
            elif isinstance(p, InvalidInputError | PolicyDeniedError):
                results.append(p)
        return results

    def _prepare_write(
        self, request: RememberRequest, policy: MemoryPolicyContext
    ) -> tuple[Source, list[Chunk], PolicyDecision]:
        """Check and authorise one request, and compose its source and chunks."""
        request.validate()
        require_org(policy, request.org_id)
        target = write_target(policy, request.scope, request.scope_key)
        decision = authorize_write(policy, target)
        if not decision.allowed:
            self._audit.note(policy, "remember", decision)
            raise denied(decision, "remembering")
        assert policy.actor is not None  # an allowed write always has an actor
        source, chunks = compose_memory(
            new_id=self._ids.new_id,
            org_id=request.org_id,
            actor_id=policy.actor.principal_id,
            content=request.content,
            now=self._clock.now(),
            scope=target.scope,
            scope_key=target.scope_key,
            source_type=request.source_type,
            source_uri=request.source_uri,
            metadata=request.metadata,
            occurred_at=request.occurred_at,
            rules=self._chunking,
            turns=request.turns,
        )
        return source, chunks, decision

    def _tell(self, policy: MemoryPolicyContext, source_ids: list[str]) -> None:
        for listener in self.listeners:
            listener(policy, source_ids)

    def _note_write(
        self,
        policy: MemoryPolicyContext,
        decision: PolicyDecision,
        source: Source,
        chunks: Sequence[Chunk],
    ) -> None:
        self._audit.note(
            policy,
            "remember",
            decision,
            ids=[source.source_id],
            counts={"chunks": len(chunks)},
            hashes={"content": source.content_hash},
        )
