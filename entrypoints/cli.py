"""The ``tessera`` command: serve, remember, recall, context, inspect, admin.

Readable text by default, JSON with ``--json``. Exit codes: 0 ok, 2 bad
input, 3 store or service unavailable, 4 refused (key or policy), 1 any
other failure.
"""

import argparse
import json
import os
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, NoReturn

from application.memory.limits import DEFAULT_PACK_BUDGET, DEFAULT_SEARCH_LIMIT
from domain.errors import TesseraError
from domain.scopes import MemoryScope, SourceType
from entrypoints.admin_cli import add_admin_parser, run_admin
from entrypoints.bulk_cli import add_bulk_parsers, run_bulk
from entrypoints.correct_cli import add_correct_parser, run_correct
from entrypoints.errors import exit_code_for
from entrypoints.filter_cli import add_filter_arguments, filters_body
from entrypoints.import_cli import add_import_parser, run_import
from entrypoints.lean_imports import skip_unused_imports
from entrypoints.paths import path_segment
from entrypoints.recall_output import print_context, print_search, print_source
from entrypoints.reembed_cli import add_reembed_parser, run_reembed
from entrypoints.reflection_cli import add_reflection_parsers, run_candidates, run_reflect
from entrypoints.share_cli import add_share_parser, run_share
from entrypoints.synthesis_cli import add_synthesis_parser, run_synthesis
from entrypoints.wake_cli import add_wake_parser, run_wake

if TYPE_CHECKING:
    from entrypoints.settings import Settings

__all__ = ["MCP_PORT", "main", "run_and_exit"]

MCP_PORT = 8766


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="tessera", description="Source-grounded memory for AI agents."
    )
    sub = parser.add_subparsers(dest="command", required=True)

    serve = sub.add_parser("serve", help="run the HTTP service")
    serve.add_argument("--host", help="address to listen on (default 127.0.0.1)")
    serve.add_argument("--port", type=int, help="port to listen on (default 8765)")

    mcp = sub.add_parser(
        "mcp",
        help="run the MCP server for agents (stdio; --http for streamable HTTP)",
        description="Serve Tessera's tools over the Model Context Protocol. Over stdio the "
        "API key comes from TESSERA_API_KEY; over HTTP from each request's bearer key.",
    )
    mcp.add_argument("--http", action="store_true", help="serve streamable HTTP at /mcp")
    mcp.add_argument("--host", help="address to listen on with --http (default 127.0.0.1)")
    mcp.add_argument(
        "--port", type=int, default=MCP_PORT, help=f"port with --http (default {MCP_PORT})"
    )

    remember = sub.add_parser("remember", help="remember text ('-' reads stdin)")
    remember.add_argument("text")
    remember.add_argument("--scope", choices=[s.value for s in MemoryScope], default="private")
    remember.add_argument("--scope-key")
    remember.add_argument(
        "--type", dest="source_type", choices=[s.value for s in SourceType], default="note"
    )
    remember.add_argument("--source-uri")
    remember.add_argument("--occurred-at", help="RFC 3339 time with offset")
    remember.add_argument(
        "--wait",
        choices=["stored", "indexed"],
        default="stored",
        help="'indexed': return only once it is searchable by meaning too",
    )
    remember.add_argument("--json", action="store_true", help="print JSON")

    recall = sub.add_parser("recall", help="search memory")
    recall.add_argument("query")
    recall.add_argument("--limit", type=int, default=DEFAULT_SEARCH_LIMIT)
    recall.add_argument("--json", action="store_true", help="print JSON")
    add_filter_arguments(recall)

    context = sub.add_parser("context", help="a context pack within a token budget")
    context.add_argument("query")
    context.add_argument("--budget", type=int, default=DEFAULT_PACK_BUDGET)
    context.add_argument("--json", action="store_true", help="print JSON")
    add_filter_arguments(context)

    inspect = sub.add_parser("inspect", help="what a source is and why you can see it")
    inspect.add_argument("source_id")
    inspect.add_argument("--json", action="store_true", help="print JSON (every field)")

    status = sub.add_parser("status", help="operator diagnostics (the install's owner)")
    status.add_argument("--json", action="store_true", help="print JSON")

    add_admin_parser(sub)
    add_synthesis_parser(sub)
    add_correct_parser(sub)
    add_bulk_parsers(sub)
    add_import_parser(sub)
    add_reflection_parsers(sub)
    add_wake_parser(sub)
    add_reembed_parser(sub)
    add_share_parser(sub)
    return parser


async def _run_client(args: argparse.Namespace, settings: "Settings") -> int:
    from entrypoints.backends import choose_backend

    backend = await choose_backend(settings)
    try:
        if args.command == "admin":
            return await run_admin(backend, args)
        if args.command == "status":
            from entrypoints.status_cli import print_status

            print_status(await backend.call("GET", "/api/status"), as_json=args.json)
            return 0
        if args.command == "synthesize":
            return await run_synthesis(backend, args)
        if args.command == "correct":
            return await run_correct(backend, args)
        if args.command in ("export", "delete"):
            return await run_bulk(backend, args)
        if args.command == "import":
            return await run_import(backend, args, settings)
        if args.command == "reflect":
            return await run_reflect(backend, args)
        if args.command == "candidates":
            return await run_candidates(backend, args)
        if args.command == "wake":
            return await run_wake(backend, args)
        if args.command == "reembed":
            return await run_reembed(backend, args)
        if args.command == "share":
            return await run_share(backend, args)
        if args.command == "inspect":
            source = path_segment(args.source_id)
            result = await backend.call("GET", f"/api/memory/sources/{source}")
            print(json.dumps(result, indent=2)) if args.json else print_source(result)
        elif args.command == "remember":
            text = sys.stdin.read() if args.text == "-" else args.text
            body: dict[str, Any] = {
                "content": text,
                "scope": args.scope,
                "source_type": args.source_type,
            }
            if args.wait != "stored":
                body["wait"] = args.wait
            for key in ("scope_key", "source_uri", "occurred_at"):
                if getattr(args, key):
                    body[key] = getattr(args, key)
            result = await backend.call("POST", "/api/memory/remember", body)
            if args.json:
                print(json.dumps(result))
            else:
                print(
                    f"Remembered source {result['source_id']} "
                    f"({len(result['chunk_ids'])} chunk(s)) via {backend.description}"
                )
        elif args.command == "recall":
            body = {"query": args.query, "limit": args.limit}
            if (filters := filters_body(args)) is not None:
                body["filters"] = filters
            result = await backend.call("POST", "/api/search", body)
            print(json.dumps(result)) if args.json else print_search(result, args.query)
        else:
            body = {"query": args.query, "token_budget": args.budget}
            if (filters := filters_body(args)) is not None:
                body["filters"] = filters
            result = await backend.call("POST", "/api/context/pack", body)
            print(json.dumps(result)) if args.json else print_context(result)
    finally:
        await backend.close()
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    skip_unused_imports()
    # only a command that runs needs these: ``--help`` and a usage error stop before them
    import asyncio
    import logging

    from entrypoints.settings import SettingsError, load_settings

    try:
        settings = load_settings()
        # a command's own output is what a person reads; the service's progress lines are
        # for `serve` and for whoever asks for them with TESSERA_LOG_LEVEL
        quiet = args.command not in ("serve", "mcp") and "TESSERA_LOG_LEVEL" not in os.environ
        logging.basicConfig(
            level="WARNING" if quiet else settings.log_level,
            format="%(asctime)s %(levelname)s %(name)s: %(message)s",
        )
        _owner_only(settings)
        if args.command == "serve":
            from entrypoints.serve import run

            overrides = {
                k: v for k, v in (("host", args.host), ("port", args.port)) if v is not None
            }
            run(settings if not overrides else _replace(settings, overrides))
            return 0
        if args.command == "mcp":
            return _run_mcp(args, settings)
        # the service logs one audit line per request; a CLI command's own output is enough
        # nor a line per call to the service
        for name in ("tessera.audit", "httpx"):
            logging.getLogger(name).setLevel(max(logging.WARNING, logging.root.level))
        if args.command == "admin" and args.noun == "recover-owner-key":
            from entrypoints.recovery import recover_owner_key

            return asyncio.run(recover_owner_key(settings))
        if args.command == "admin" and args.noun == "recover-key":
            from entrypoints.recovery import recover_key

            return asyncio.run(recover_key(settings, args.principal, args.org))
        return asyncio.run(_run_client(args, settings))
    except TesseraError as exc:
        print(f"tessera: {exc.detail} [{exc.reason}]", file=sys.stderr)
        return exit_code_for(exc)
    except SettingsError as exc:
        print(f"tessera: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return _closed_pipe()


def _owner_only(settings: "Settings") -> None:
    """Everything Tessera writes is for its owner: 0700 directories, 0600 files."""
    import logging

    os.umask(0o077)
    try:
        settings.data_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
        if settings.data_dir.stat().st_mode & 0o077:
            os.chmod(settings.data_dir, 0o700)
    except OSError as exc:  # the store reports its own failure to open, with its reason
        logging.getLogger("tessera.cli").warning(
            "could not make %s owner-only: %s", settings.data_dir, type(exc).__name__
        )


def _closed_pipe() -> int:
    """The reader left (``tessera ... | head``): stop quietly, as a SIGPIPE'd tool does."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())  # the last flush goes nowhere instead of failing
    return 141


def _run_mcp(args: argparse.Namespace, settings: "Settings") -> int:
    import asyncio
    import logging

    from entrypoints.mcp.run import serve_http, serve_stdio
    from entrypoints.settings import SettingsError

    if not args.http:
        # stdout carries the protocol; the per-call audit lines would only be noise on stderr
        for name in ("tessera.audit", "httpx"):
            logging.getLogger(name).setLevel(max(logging.WARNING, logging.root.level))
        asyncio.run(serve_stdio(settings))
        return 0
    if not 0 < args.port < 65536:
        raise SettingsError(f"--port {args.port} is out of range")
    asyncio.run(serve_http(settings, args.host or settings.host, args.port))
    return 0


def _replace(settings: "Settings", overrides: dict[str, Any]) -> "Settings":
    import msgspec

    return msgspec.structs.replace(settings, **overrides)


def run_and_exit() -> NoReturn:
    """The console entry point: run, then leave without interpreter finalization.

    Why: the embedded SurrealDB engine sometimes aborts the process (a Rust
    panic that cannot unwind, exit 134) while Python finalizes, after the
    store was closed and the output written; seen 1 run in 8 under load, even
    before the trust layer. Everything is closed and flushed before this exit,
    so skipping finalization loses nothing and keeps the exit code honest.
    """
    code = main()
    import logging

    logging.shutdown()
    try:
        sys.stdout.flush()
    except BrokenPipeError:
        code = _closed_pipe()
    sys.stderr.flush()
    os._exit(code)


if __name__ == "__main__":
    run_and_exit()
