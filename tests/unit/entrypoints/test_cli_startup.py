"""``tessera --help`` starts fast: importing the CLI loads no client, server or model stack.

Each command imports what it uses when it runs; the parser needs only argparse
and the domain's enums for its choices.
"""

from tests.support.fresh_process import run_fresh

#: none of these is needed to build the parser or print help
HEAVY = (
    "asyncio",
    "httpx",
    "rich",
    "click",
    "logging",
    "litestar",
    "starlette",
    "surrealdb",
    "surrealdb_embedded",
    "onnxruntime",
    "numpy",
    "tiktoken",
    "openai",
    "google.genai",
    "mcp",
    "dependency_injector",
    "jinja2",
    "entrypoints.backends",
    "entrypoints.container",
    "entrypoints.settings",
)


def _loaded_by(code: str) -> set[str]:
    out = run_fresh(f"import sys\n{code}\nprint(*sys.modules, file=sys.stderr)")
    return set(out.stderr.split())


def test_importing_the_cli_loads_nothing_heavy() -> None:
    loaded = _loaded_by("import entrypoints.cli")
    assert sorted(m for m in HEAVY if m in loaded) == []


def test_help_loads_nothing_heavy() -> None:
    loaded = _loaded_by(
        "import contextlib, entrypoints.cli\n"
        "with contextlib.suppress(SystemExit):\n"
        "    entrypoints.cli.main(['--help'])"
    )
    assert sorted(m for m in HEAVY if m in loaded) == []


def test_a_command_that_calls_the_service_loads_no_http_library() -> None:
    # what `tessera recall` imports on its way to a running service: the standard library's
    loaded = _loaded_by(
        "import entrypoints.cli\n"
        "import entrypoints.backends, entrypoints.service_client, entrypoints.recall_output"
    )
    assert sorted(m for m in ("httpx", "httpcore", "anyio", "h11") if m in loaded) == []


def test_the_in_process_client_loads_no_unused_client_stack() -> None:
    # without a running service: httpx, without httpx's own command-line client
    loaded = _loaded_by(
        "import entrypoints.cli\n"
        "from entrypoints.lean_imports import skip_unused_imports\n"
        "skip_unused_imports()\n"
        "import entrypoints.http_backend"
    )
    assert "httpx" in loaded
    assert sorted(m for m in ("rich", "click", "pygments") if m in loaded) == []
