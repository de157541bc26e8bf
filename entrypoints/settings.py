"""Settings, read once from the environment into a frozen struct.

Nothing else in Tessera reads the environment: every other module gets its
configuration from here, through the container.
"""

import ipaddress
import os
from collections.abc import Mapping
from enum import StrEnum
from pathlib import Path
from typing import TypeVar

import msgspec

__all__ = [
    "DEFAULT_BLAS_THREADS",
    "ConversationSwitch",
    "EmbedderKind",
    "IndexKind",
    "LLMKind",
    "QueryPrecision",
    "RequestLog",
    "RerankKind",
    "Settings",
    "SettingsError",
    "load_settings",
]

E = TypeVar("E", bound=StrEnum)

#: an upload limit large enough for a mailbox or chat export, small enough to hold in memory
DEFAULT_MAX_UPLOAD_MB = 256
#: an organisation unused this long leaves memory (its snapshot brings it back in seconds)
DEFAULT_IDLE_MINUTES = 30.0
#: numpy's BLAS on one thread: its idle threads spin, holding cores the requests need
DEFAULT_BLAS_THREADS = 1


class EmbedderKind(StrEnum):
    ONNX = "onnx"
    SENTENCE_TRANSFORMERS = "sentence-transformers"
    OPENAI = "openai"
    GEMINI = "gemini"


class QueryPrecision(StrEnum):
    """The arithmetic of the offline embedder's search-query run (documents: float32)."""

    #: int8 MatMuls over the shipped int8 weights: about half the CPU, cosine >= 0.999
    INT8 = "int8"
    FLOAT32 = "float32"


class LLMKind(StrEnum):
    #: no language model: every default path (the extractive drafter) works without one
    NONE = "none"
    OPENAI = "openai"
    GEMINI = "gemini"
    #: llama.cpp, Ollama, vLLM or any server speaking Chat Completions at TESSERA_LLM_BASE_URL
    OPENAI_COMPATIBLE = "openai-compatible"


class RerankKind(StrEnum):
    #: keep the ranker's order (default): no model, no change to any result
    NONE = "none"
    #: a listwise reranker over the configured LLM (needs TESSERA_LLM)
    LLM = "llm"
    #: a sentence-transformers CrossEncoder loaded from TESSERA_RERANK_MODEL_DIR (``st`` extra)
    CROSS_ENCODER = "cross-encoder"


class IndexKind(StrEnum):
    #: numpy exact vector scan + in-memory BM25, rebuilt from SurrealDB (default)
    INPROCESS = "inprocess"
    #: SurrealDB's own FULLTEXT BM25 and HNSW indexes
    SURREAL = "surreal"


class ConversationSwitch(StrEnum):
    """Conversation-aware recall (docs/design.md#conversation-aware-recall)."""

    ON = "on"
    #: retrieval as before it (the other arm of a comparison)
    OFF = "off"


class RequestLog(StrEnum):
    """Where ``serve`` writes one access line and one audit line per request."""

    #: nowhere (default): the console shows start-up, warnings and the first owner key
    OFF = "off"
    CONSOLE = "console"
    #: ``$TESSERA_DATA_DIR/logs/requests.log``, owner-only
    FILE = "file"


class Settings(msgspec.Struct, frozen=True, kw_only=True):
    data_dir: Path
    db_url: str
    db_user: str | None = None
    db_password: str | None = None
    host: str = "127.0.0.1"
    port: int = 8765
    org_id: str = "local"
    #: the CLI's key (TESSERA_API_KEY); without it the CLI uses the owner key file
    api_key: str | None = None
    #: the agent a client claims to act as (TESSERA_AGENT); it must be its key's own agent
    agent: str | None = None
    embedder: EmbedderKind = EmbedderKind.ONNX
    embedder_model: str | None = None
    embedder_api_key: str | None = None
    embedder_dimensions: int | None = None
    embedder_base_url: str | None = None
    #: TESSERA_QUERY_PRECISION: the offline embedder's query run (``onnx`` only)
    query_precision: QueryPrecision = QueryPrecision.INT8
    index: IndexKind = IndexKind.INPROCESS
    #: the in-process vector leg reads an inverted file (faiss IVF) from this many rows
    #: (TESSERA_ANN_MIN_ROWS; ``off``: the exact scan at any size; None: the index's default)
    ann_min_rows: int | None = None
    ann_off: bool = False
    #: minutes an organisation's in-process index may go unused before it is dropped from
    #: memory, its snapshot written first (TESSERA_INDEX_IDLE_MINUTES; ``off``: never)
    index_idle_minutes: float | None = DEFAULT_IDLE_MINUTES
    #: threads numpy's BLAS may use for one product (TESSERA_BLAS_THREADS; ``auto``: as
    #: the library chooses, None here); one, as its idle threads spin on the cores
    blas_threads: int | None = DEFAULT_BLAS_THREADS
    llm: LLMKind = LLMKind.NONE
    llm_model: str | None = None
    llm_api_key: str | None = None
    llm_base_url: str | None = None
    rerank: RerankKind = RerankKind.NONE
    rerank_model_dir: Path | None = None
    #: results the reranker sees (TESSERA_RERANK_TOP_N)
    rerank_top_n: int = 20
    #: conversation-aware recall (TESSERA_CONVERSATION_RECALL=on|off)
    conversation_recall: ConversationSwitch = ConversationSwitch.ON
    log_level: str = "INFO"
    request_log: RequestLog = RequestLog.OFF
    #: requests slower than this leave a tessera.slow warning (shape and timing only)
    slow_request_ms: int = 1000
    #: each organisation's import area and uploads lie under it (TESSERA_IMPORT_ROOT;
    #: default <data dir>/imports)
    import_root: Path | None = None
    #: folders an organisation may also import from by path (TESSERA_IMPORT_DIRS: ORG=DIR
    #: entries separated by the path separator, ``:`` on Unix)
    import_dirs: tuple[tuple[str, Path], ...] = ()
    #: (organisation id, principal id) pairs that may import by path besides each
    #: organisation's owners (TESSERA_IMPORT_PATH_PRINCIPALS: ORG/PRINCIPAL, comma separated)
    import_path_principals: tuple[tuple[str, str], ...] = ()
    #: hours an upload stays after its import ended (TESSERA_IMPORT_KEEP_UPLOADS_HOURS)
    import_keep_uploads_hours: float = 0.0
    #: the largest archive an HTTP upload may send (TESSERA_IMPORT_MAX_UPLOAD_MB)
    import_max_upload_bytes: int = DEFAULT_MAX_UPLOAD_MB * 1024 * 1024
    #: reflect writes and imports in the background (TESSERA_REFLECT_ON_WRITE=on|off)
    reflect_on_write: ConversationSwitch = ConversationSwitch.OFF
    #: the reverse proxies (addresses or networks) whose X-Forwarded-For and
    #: X-Forwarded-Proto headers are believed (TESSERA_TRUSTED_PROXIES); none by default
    trusted_proxies: tuple[str, ...] = ()

    @property
    def imports_dir(self) -> Path:
        """The import root: the configured one, else ``imports`` under the data directory."""
        return self.import_root if self.import_root is not None else self.data_dir / "imports"

    @property
    def url_kind(self) -> str:
        return self.db_url.split("://", 1)[0]

    @property
    def server_file(self) -> Path:
        """Where a running ``tessera serve`` says how to reach it (for the CLI)."""
        return self.data_dir / "server.json"


class SettingsError(ValueError):
    """A setting has a value Tessera cannot use; the message names it."""


def _default_data_dir(env: Mapping[str, str]) -> Path:
    base = env.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "tessera"


def _choice(env: Mapping[str, str], name: str, kind: type[E], default: E) -> E:
    raw = env.get(name)
    if raw is None or raw == "":
        return default
    try:
        return kind(raw.strip().lower())
    except ValueError:
        allowed = ", ".join(k.value for k in kind)
        raise SettingsError(f"{name}={raw!r} is not one of: {allowed}") from None


def _idle_minutes(raw: str | None) -> float | None:
    if raw is None or not raw.strip():
        return DEFAULT_IDLE_MINUTES
    if raw.strip().lower() == "off":
        return None
    try:
        minutes = float(raw)
    except ValueError:
        minutes = -1.0
    if not 0 < minutes < float("inf"):
        raise SettingsError(f"TESSERA_INDEX_IDLE_MINUTES={raw!r} is not a positive number or 'off'")
    return minutes


def _blas_threads(raw: str | None) -> int | None:
    if raw is None or not raw.strip():
        return DEFAULT_BLAS_THREADS
    if raw.strip().lower() == "auto":
        return None
    if not raw.strip().isdigit() or int(raw) < 1:
        raise SettingsError(
            f"TESSERA_BLAS_THREADS={raw!r} is not a positive thread count or 'auto'"
        )
    return int(raw)


def _ann_rows(raw: str | None) -> int | None:
    if raw is None or not raw.strip() or raw.strip().lower() == "off":
        return None
    if not raw.strip().isdigit():
        raise SettingsError(f"TESSERA_ANN_MIN_ROWS={raw!r} is not a row count or 'off'")
    return int(raw)


def load_settings(env: Mapping[str, str] | None = None) -> Settings:
    env = os.environ if env is None else env
    data_dir = Path(env.get("TESSERA_DATA_DIR") or _default_data_dir(env)).expanduser().resolve()
    db_url = env.get("TESSERA_DB_URL") or f"surrealkv://{data_dir / 'db'}"
    if db_url.split("://", 1)[0] not in {"surrealkv", "mem", "memory", "ws", "wss", "file"}:
        raise SettingsError(
            f"TESSERA_DB_URL must start with surrealkv://, mem://, ws:// or wss:// (got {db_url!r})"
        )
    port_raw = env.get("TESSERA_PORT", "8765")
    try:
        port = int(port_raw)
    except ValueError:
        raise SettingsError(f"TESSERA_PORT={port_raw!r} is not a number") from None
    if not 0 < port < 65536:
        raise SettingsError(f"TESSERA_PORT={port} is out of range")
    upload_raw = env.get("TESSERA_IMPORT_MAX_UPLOAD_MB") or str(DEFAULT_MAX_UPLOAD_MB)
    if not (upload_raw.isdigit() and int(upload_raw) > 0):
        raise SettingsError(f"TESSERA_IMPORT_MAX_UPLOAD_MB={upload_raw!r} is not a positive number")
    import_root = env.get("TESSERA_IMPORT_ROOT") or None
    import_dirs = _import_dirs(env.get("TESSERA_IMPORT_DIRS") or "")
    path_principals = _path_principals(env.get("TESSERA_IMPORT_PATH_PRINCIPALS") or "")
    keep_hours = _keep_hours(env.get("TESSERA_IMPORT_KEEP_UPLOADS_HOURS") or "0")
    embedder = _choice(env, "TESSERA_EMBEDDER", EmbedderKind, EmbedderKind.ONNX)
    dims_raw = env.get("TESSERA_EMBEDDER_DIMENSIONS") or None
    if dims_raw is not None and not (dims_raw.isdigit() and int(dims_raw) > 0):
        raise SettingsError(f"TESSERA_EMBEDDER_DIMENSIONS={dims_raw!r} is not a positive number")
    api_key = env.get("TESSERA_EMBEDDER_API_KEY")
    if api_key is None and embedder is EmbedderKind.OPENAI:
        api_key = env.get("OPENAI_API_KEY")
    if api_key is None and embedder is EmbedderKind.GEMINI:
        api_key = env.get("GEMINI_API_KEY") or env.get("GOOGLE_API_KEY")
    llm = _choice(env, "TESSERA_LLM", LLMKind, LLMKind.NONE)
    llm_key = env.get("TESSERA_LLM_API_KEY")
    if llm_key is None and llm is LLMKind.OPENAI:
        llm_key = env.get("OPENAI_API_KEY")
    if llm_key is None and llm is LLMKind.GEMINI:
        llm_key = env.get("GEMINI_API_KEY") or env.get("GOOGLE_API_KEY")
    return Settings(
        data_dir=data_dir,
        db_url=db_url,
        db_user=env.get("TESSERA_DB_USER") or None,
        db_password=env.get("TESSERA_DB_PASSWORD") or None,
        host=env.get("TESSERA_HOST", "127.0.0.1"),
        port=port,
        org_id=env.get("TESSERA_ORG", "local"),
        api_key=env.get("TESSERA_API_KEY") or None,
        agent=env.get("TESSERA_AGENT") or None,
        embedder=embedder,
        embedder_model=env.get("TESSERA_EMBEDDER_MODEL") or None,
        embedder_api_key=api_key or None,
        embedder_dimensions=int(dims_raw) if dims_raw else None,
        embedder_base_url=env.get("TESSERA_EMBEDDER_BASE_URL") or None,
        query_precision=_choice(
            env, "TESSERA_QUERY_PRECISION", QueryPrecision, QueryPrecision.INT8
        ),
        index=_choice(env, "TESSERA_INDEX", IndexKind, IndexKind.INPROCESS),
        ann_min_rows=_ann_rows(env.get("TESSERA_ANN_MIN_ROWS")),
        ann_off=(env.get("TESSERA_ANN_MIN_ROWS") or "").strip().lower() == "off",
        index_idle_minutes=_idle_minutes(env.get("TESSERA_INDEX_IDLE_MINUTES")),
        blas_threads=_blas_threads(env.get("TESSERA_BLAS_THREADS")),
        llm=llm,
        llm_model=env.get("TESSERA_LLM_MODEL") or None,
        llm_api_key=llm_key or None,
        llm_base_url=env.get("TESSERA_LLM_BASE_URL") or None,
        rerank=_choice(env, "TESSERA_RERANK", RerankKind, RerankKind.NONE),
        rerank_model_dir=_model_dir(env.get("TESSERA_RERANK_MODEL_DIR")),
        rerank_top_n=_top_n(env.get("TESSERA_RERANK_TOP_N", "20")),
        conversation_recall=_choice(
            env, "TESSERA_CONVERSATION_RECALL", ConversationSwitch, ConversationSwitch.ON
        ),
        log_level=env.get("TESSERA_LOG_LEVEL", "INFO").upper(),
        request_log=_choice(env, "TESSERA_REQUEST_LOG", RequestLog, RequestLog.OFF),
        slow_request_ms=_slow_ms(env.get("TESSERA_SLOW_REQUEST_MS", "1000")),
        import_root=Path(import_root).expanduser().resolve() if import_root else None,
        import_max_upload_bytes=int(upload_raw) * 1024 * 1024,
        import_dirs=import_dirs,
        import_path_principals=path_principals,
        import_keep_uploads_hours=keep_hours,
        reflect_on_write=_choice(
            env, "TESSERA_REFLECT_ON_WRITE", ConversationSwitch, ConversationSwitch.OFF
        ),
        trusted_proxies=_trusted_proxies(env.get("TESSERA_TRUSTED_PROXIES")),
    )


def _trusted_proxies(raw: str | None) -> tuple[str, ...]:
    """Comma-separated addresses or networks, each checked and written as a network."""
    networks: list[str] = []
    for entry in (raw or "").split(","):
        if not entry.strip():
            continue
        try:
            networks.append(str(ipaddress.ip_network(entry.strip(), strict=False)))
        except ValueError:
            raise SettingsError(
                f"TESSERA_TRUSTED_PROXIES: {entry.strip()!r} is not an IP address or network "
                "(such as 10.0.0.5 or 10.0.0.0/24)"
            ) from None
    return tuple(dict.fromkeys(networks))


def _import_dirs(raw: str) -> tuple[tuple[str, Path], ...]:
    dirs: list[tuple[str, Path]] = []
    for entry in filter(None, (e.strip() for e in raw.split(os.pathsep))):
        org, sep, folder = entry.partition("=")
        if not sep or not org.strip() or not folder.strip():
            raise SettingsError(
                f"TESSERA_IMPORT_DIRS entry {entry!r} is not ORG=DIR (an organisation id, "
                "an equals sign and a folder)"
            )
        path = Path(folder.strip()).expanduser()
        if not path.is_absolute():
            raise SettingsError(f"TESSERA_IMPORT_DIRS folder {folder!r} is not an absolute path")
        dirs.append((org.strip(), path.resolve()))
    return tuple(dirs)


def _path_principals(raw: str) -> tuple[tuple[str, str], ...]:
    pairs: list[tuple[str, str]] = []
    for entry in filter(None, (e.strip() for e in raw.split(","))):
        org, sep, principal = entry.partition("/")
        if not sep or not org.strip() or not principal.strip():
            raise SettingsError(
                f"TESSERA_IMPORT_PATH_PRINCIPALS entry {entry!r} is not ORG/PRINCIPAL "
                "(an organisation id, a slash and a principal id)"
            )
        pairs.append((org.strip(), principal.strip()))
    return tuple(pairs)


def _keep_hours(raw: str) -> float:
    try:
        hours = float(raw)
    except ValueError:
        hours = -1.0
    if not 0 <= hours < float("inf"):
        raise SettingsError(
            f"TESSERA_IMPORT_KEEP_UPLOADS_HOURS={raw!r} is not a number of hours (0 or more)"
        )
    return hours


def _slow_ms(raw: str) -> int:
    if not raw.strip().isdigit():
        raise SettingsError(f"TESSERA_SLOW_REQUEST_MS={raw!r} is not a whole number of ms")
    return int(raw)


def _model_dir(raw: str | None) -> Path | None:
    return Path(raw).expanduser().resolve() if raw else None


def _top_n(raw: str) -> int:
    if not raw.strip().isdigit() or not 2 <= int(raw) <= 200:
        raise SettingsError(f"TESSERA_RERANK_TOP_N={raw!r} is not a whole number from 2 to 200")
    return int(raw)
