"""The closed set of stable reason codes that every decision and failure carries.

Clients branch on these strings, so they never change meaning once released.
"""

from enum import StrEnum

__all__ = ["ReasonCode"]


class ReasonCode(StrEnum):
    # request validation
    MALFORMED_JSON = "malformed_json"
    UNSUPPORTED_MEDIA_TYPE = "unsupported_media_type"
    INVALID_REQUEST = "invalid_request"
    UNKNOWN_FIELD = "unknown_field"
    EMPTY_CONTENT = "empty_content"
    EMPTY_QUERY = "empty_query"
    CONTENT_TOO_LARGE = "content_too_large"
    LIMIT_OUT_OF_RANGE = "limit_out_of_range"
    BUDGET_OUT_OF_RANGE = "budget_out_of_range"
    INVALID_SCOPE_KEY = "invalid_scope_key"
    MISSING_SCOPE_KEY = "missing_scope_key"
    INVALID_TURN = "invalid_turn"
    #: a search ``filters`` object breaks a rule: a bad date, from after to, too many entries
    INVALID_FILTER = "invalid_filter"
    NOT_FOUND = "not_found"
    #: a resume token the source adapter did not issue
    INVALID_CHECKPOINT = "invalid_checkpoint"
    #: an import names an archive format Tessera has no adapter for
    UNKNOWN_ADAPTER = "unknown_adapter"
    #: an import names a path outside its organisation's import area (symlinks resolved)
    PATH_OUTSIDE_IMPORT_ROOT = "path_outside_import_root"
    #: a path import by a principal the operator did not approve (uploads need no approval)
    PATH_IMPORT_NOT_ALLOWED = "path_import_not_allowed"
    #: an upload's folder was removed (its import ended, or it was abandoned): upload it again
    UPLOAD_REMOVED = "upload_removed"
    #: an archive Tessera cannot read: a compression or container it does not take, a
    #: name that promises another compression than its bytes hold, damaged data
    UNSUPPORTED_ARCHIVE = "unsupported_archive"
    #: an import that ended having read no record (a warning on the record, not a failure)
    NO_RECORDS_READ = "no_records_read"
    #: an import path no file system takes: a NUL byte, a name or path too long
    INVALID_PATH = "invalid_path"
    # storage and models
    EMBEDDER_MISMATCH = "embedder_mismatch"
    EMBEDDER_FAILED = "embedder_failed"
    LLM_FAILED = "llm_failed"
    LLM_BAD_OUTPUT = "llm_bad_output"
    #: a reranker failed; the ranker's order was kept (logged, never an error to the caller)
    RERANK_FAILED = "rerank_failed"
    # changing the embedding model: ``tessera reembed``
    #: the named embedder is not one this install can build
    UNKNOWN_EMBEDDER = "unknown_embedder"
    #: a re-embed is already running (one at a time per store)
    REEMBED_RUNNING = "reembed_running"
    #: the store already holds vectors of the named embedder
    REEMBED_SAME_MODEL = "reembed_same_model"
    #: a chunk has no vector of the new model yet: the switch waits for it
    REEMBED_INCOMPLETE = "reembed_incomplete"
    # synthesis
    LLM_NOT_CONFIGURED = "llm_not_configured"
    SYNTHESIS_BLOCKED = "synthesis_blocked"
    STORE_LOCKED = "store_locked"
    STORE_UNAVAILABLE = "store_unavailable"
    #: the service listens but its store and model are still opening
    STARTING = "starting"
    STORE_FAILED = "store_failed"
    SERVICE_UNREACHABLE = "service_unreachable"
    INTERNAL_ERROR = "internal_error"
    # memory policy (docs/design.md#policy); enforced by the trust layer
    ALLOWED = "allowed"
    MISSING_ACTOR = "missing_actor"
    UNVERIFIED_MEMBERSHIP = "unverified_membership"
    SCOPE_DISABLED = "scope_disabled"
    DELEGATION_REQUIRED = "delegation_required"
    DELEGATION_EXPIRED = "delegation_expired"
    HIDDEN_SOURCE = "hidden_source"
    REDACTED_SOURCE = "redacted_source"
    SOURCE_DELETED = "source_deleted"
    SCOPE_CROSSING_REQUIRES_PROMOTION = "scope_crossing_requires_promotion"
    PRINCIPAL_MISMATCH = "principal_mismatch"
    AGENT_IDENTITY_REQUIRED = "agent_identity_required"
    JOB_POLICY_CONTEXT_MISSING = "job_policy_context_missing"
    #: a job's stored authority no longer holds (its key revoked, its principal gone)
    JOB_POLICY_CONTEXT_STALE = "job_policy_context_stale"
    INSUFFICIENT_ROLE = "insufficient_role"
    ADMIN_REQUIRED = "admin_required"
    #: the organisation's owner role, an owner's key: only the organisation's owners
    ORG_OWNER_REQUIRED = "org_owner_required"
    #: a space's ownership changes only by its owners (or the organisation's owners)
    SPACE_OWNER_REQUIRED = "space_owner_required"
    #: keys are minted only for oneself, one's own agents, or a new user's first key
    KEY_NOT_YOURS = "key_not_yours"
    #: a delegation is granted only by the user the agent acts for
    DELEGATION_NOT_YOURS = "delegation_not_yours"
    SOURCE_MARKED_WRONG = "source_marked_wrong"
    SENSITIVE_SOURCE = "sensitive_source"
    #: a superseded source is recalled only beside a replacement the reader may read too
    REPLACEMENT_NOT_VISIBLE = "replacement_not_visible"
    # corrections (docs/design.md#lifecycle)
    TRANSITION_NOT_ALLOWED = "transition_not_allowed"
    SOURCE_CHANGED = "source_changed"
    PREVIEW_REQUIRED = "preview_required"
    PREVIEW_INVALID = "preview_invalid"
    # reflection (docs/design.md#derived-memory): a proposed candidate's cited span
    #: the span does not fit inside its source's content
    SPAN_OUT_OF_RANGE = "span_out_of_range"
    #: the span's quote is not the source's text at that span
    SPAN_MISMATCH = "span_mismatch"
    #: reflection reads active sources only (not superseded or duplicate history)
    SOURCE_NOT_ACTIVE = "source_not_active"
    # authentication (HTTP 401)
    MISSING_API_KEY = "missing_api_key"
    INVALID_API_KEY = "invalid_api_key"
    REVOKED_API_KEY = "revoked_api_key"
    # control plane
    ALREADY_EXISTS = "already_exists"
    LAST_OWNER_KEY = "last_owner_key"
    #: the install's own organisation cannot be dropped
    HOME_ORGANIZATION = "home_organization"
    #: a drop's preview token no longer matches the organisation's state
    PREVIEW_STALE = "preview_stale"
