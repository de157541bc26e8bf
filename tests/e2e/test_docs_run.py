"""The examples of README.md and docs/ run as written, from a fresh shell, against a live service.

``tests/unit/entrypoints/test_docs.py`` checks every command without running it;
this runs each page's shell examples that a reader can paste as they are: one
shell a page (a page's later examples use the ``KEY`` its first one read), the
blocks in page order, a fresh home directory whose service ``tessera serve``
started, the Quick start's virtual environment activated as the guides ask
(``. .venv/bin/activate``) so a bare ``tessera`` is the installed one.

Left aside, each for a reason a reader meets too: installs (the
clean-clone check runs the Quick start's), synopses with placeholders
(``SOURCE_ID``, ``[--limit 5]``, ``...``), key recovery (it wants the service
stopped), and benchmarks and mutation runs (minutes each; docs/evaluation.md).

The one change to what is written: the examples' port (8765) becomes the test
service's, so a service already on 8765 is never the one asked. A failed HTTP
call fails the example: ``curl`` runs with ``--fail-with-body``.
"""

import os
import re
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.e2e.conftest import ROOT, free_port, start_listening, stop, tessera_env

_FENCE = re.compile(r"^```([\w-]*)[^\n]*\n(.*?)^```", re.M | re.S)
#: what a reader must fill in: SOURCE_ID, NEW_ID, ``[--limit 5]``, ``...``
_PLACEHOLDER = re.compile(r"\b[A-Z][A-Z0-9]*_[A-Z0-9_]+\b|\.\.\.|…|\[--|<[a-z]")
#: not pasted as they are: installs, key recovery, long runs
_ASIDE = ("pip install", "recover-", "benchmarks.", "mutmut")
_DOCS_PORT = "localhost:8765"
_TESSERA = ROOT / ".venv" / "bin" / "tessera"


def _runnable(doc: Path) -> list[str]:
    blocks = []
    for lang, block in _FENCE.findall(doc.read_text(encoding="utf-8")):
        code = "\n".join(
            line for line in block.splitlines() if not line.lstrip().startswith("#")
        ).strip()
        if lang not in ("bash", "sh", "shell") or not code:
            continue
        if "curl" not in code and "tessera" not in code:
            continue
        if _PLACEHOLDER.search(code) or any(word in code for word in _ASIDE):
            continue
        blocks.append(block)
    return blocks


PAGES = {
    doc.relative_to(ROOT).as_posix(): blocks
    for doc in sorted([ROOT / "README.md", *(ROOT / "docs").rglob("*.md")])
    if (blocks := _runnable(doc))
}


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[dict[str, str], int]]:
    """A fresh home whose ``tessera serve`` (the installed command) is listening."""
    if not _TESSERA.exists():
        pytest.skip(f"the examples name {_TESSERA.relative_to(ROOT)}, which this checkout lacks")
    home = tmp_path_factory.mktemp("home")
    shim = home / "bin"
    shim.mkdir()
    curl = shutil.which("curl")
    if curl is None:
        pytest.skip("the examples use curl, which this machine lacks")
    (shim / "curl").write_text(f'#!/bin/sh\nexec {curl} --fail-with-body "$@"\n')
    (shim / "curl").chmod(0o755)
    env = {k: v for k, v in tessera_env(home / "unused").items() if not k.startswith("TESSERA_")}
    env.pop("XDG_DATA_HOME", None)
    env.update(
        HOME=str(home),
        PATH=os.pathsep.join([str(shim), str(_TESSERA.parent), env["PATH"]]),
        VIRTUAL_ENV=str(_TESSERA.parent.parent),
        TESSERA_LOG_LEVEL="WARNING",
    )
    port = free_port()
    proc = start_listening(
        ["serve", "--port", str(port)], env, f"http://127.0.0.1:{port}/api/health"
    )
    try:
        yield env, port
    finally:
        stop(proc)


def test_there_are_examples_to_run() -> None:
    assert {"README.md", "docs/http-api.md"} <= set(PAGES)


@pytest.mark.parametrize("page", sorted(PAGES))
def test_a_pages_examples_run_as_written(page: str, service: tuple[dict[str, str], int]) -> None:
    env, port = service
    script = "\n".join(PAGES[page]).replace(_DOCS_PORT, f"localhost:{port}")
    done = subprocess.run(
        ["bash", "-e", "-o", "pipefail", "-c", script],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, (
        f"{page}:\n{script}\n--- out\n{done.stdout}\n--- err\n{done.stderr}"
    )
