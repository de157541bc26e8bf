"""README.md and docs/ guide a reader: every link lands, every command and route exists.

Checked without running anything: relative links name files the repository
holds (and headings that exist), nothing cites ``../shared`` or a design file
the repository does not hold, no tracker references, every ``tessera <command>`` in
a fenced shell block is a command of the CLI's parser, and every ``curl`` to
the service names a route of the HTTP app and sends a body as JSON.
"""

import argparse
import importlib
import pkgutil
import re
from functools import cache
from pathlib import Path

import pytest

from entrypoints.cli import _parser
from tests.test_code_quality import TRACKER

ROOT = Path(__file__).resolve().parents[3]
DOCS = sorted([ROOT / "README.md", *(ROOT / "docs").rglob("*.md")])

_FENCE = re.compile(r"^```([\w-]*)[^\n]*\n(.*?)^```", re.M | re.S)
_LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
_HEADING = re.compile(r"^#{1,6} (.+)$", re.M)
#: the name of a design file outside the repository, spelt so this file does not hold it
_OUTSIDE_DESIGN = "DES" + "IGN.md"
_COMMAND = re.compile(r"(?:^|[\s/|;&(`])tessera ([a-z][a-z-]*(?: [a-z][a-z-]*)*)")
_CURL_PATH = re.compile(r"localhost:8765(/api/[^\s'\"?]*)")
_SHELL = {"", "bash", "sh", "shell", "console"}


def _rel(path: Path) -> str:
    return str(path.relative_to(ROOT))


def _prose(text: str) -> str:
    """The text outside fenced blocks (headings inside code are not headings)."""
    return _FENCE.sub("", text)


def _slug(heading: str) -> str:
    """GitHub's anchor for a heading."""
    text = heading.strip().lower().replace("`", "")
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


@cache
def _anchors(path: Path) -> frozenset[str]:
    return frozenset(_slug(h) for h in _HEADING.findall(_prose(path.read_text())))


def _shell_blocks(text: str) -> list[str]:
    return [body for lang, body in _FENCE.findall(text) if lang in _SHELL]


@pytest.mark.parametrize("doc", DOCS, ids=_rel)
def test_every_relative_link_lands_on_a_file_and_heading_the_repository_holds(doc: Path) -> None:
    broken = []
    for target in _LINK.findall(_prose(doc.read_text())):
        if re.match(r"[a-z]+:", target):
            continue  # http:, https:, mailto:
        file_part, _, anchor = target.partition("#")
        path = (doc.parent / file_part).resolve() if file_part else doc
        lands = path.is_relative_to(ROOT) and path.exists()
        if not lands or (anchor and path.suffix == ".md" and anchor not in _anchors(path)):
            broken.append(target)
    assert broken == [], f"{_rel(doc)} links what is not there: {broken}"


@pytest.mark.parametrize("doc", DOCS, ids=_rel)
def test_the_docs_cite_nothing_outside_the_repository_and_no_tracker(doc: Path) -> None:
    text = doc.read_text()
    assert "../shared" not in text
    assert _OUTSIDE_DESIGN not in text
    assert TRACKER.findall(text) == []


def _subcommands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser] | None:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return None


def _unknown_command(words: list[str]) -> str | None:
    """The first word that is not a command where the parser expects one."""
    parser = _parser()
    for word in words:
        choices = _subcommands(parser)
        if choices is None:
            return None  # a positional argument: the command is complete
        if word not in choices:
            return word
        parser = choices[word]
    return None


@pytest.mark.parametrize("doc", DOCS, ids=_rel)
def test_every_tessera_command_in_a_shell_block_is_one_the_cli_has(doc: Path) -> None:
    unknown = []
    for block in _shell_blocks(doc.read_text()):
        for words in _COMMAND.findall(block):
            word = _unknown_command(words.split())
            if word is not None:
                unknown.append(f"tessera {words}")
    assert unknown == [], f"{_rel(doc)} names commands the CLI lacks: {unknown}"


@cache
def _routes() -> tuple[re.Pattern[str], ...]:
    from litestar.handlers import HTTPRouteHandler

    import entrypoints.http as http

    patterns = []
    for module in pkgutil.iter_modules(http.__path__):
        namespace = vars(importlib.import_module(f"entrypoints.http.{module.name}"))
        for handler in namespace.values():
            if isinstance(handler, HTTPRouteHandler):
                for path in handler.paths:
                    pattern = re.sub(r"\\\{[^}]*\\\}", "[^/]+", re.escape(path))
                    patterns.append(re.compile(pattern + "/?"))
    return tuple(patterns)


def _commands(block: str) -> list[str]:
    """The block's commands, continuation lines joined."""
    return block.replace("\\\n", " ").splitlines()


@pytest.mark.parametrize("doc", DOCS, ids=_rel)
def test_every_curl_names_a_route_and_sends_its_body_as_json(doc: Path) -> None:
    wrong = []
    for block in _shell_blocks(doc.read_text()):
        for line in _commands(block):
            if not line.lstrip().startswith("curl "):
                continue
            for path in _CURL_PATH.findall(line):
                if not any(route.fullmatch(path) for route in _routes()):
                    wrong.append(f"no route {path}")
            if " -d " in line and "content-type: application/json" not in line.lower():
                wrong.append(f"a body without its content type: {line.strip()[:80]}")
    assert wrong == [], f"{_rel(doc)}: {wrong}"


_CODE_CITE = re.compile(r"docs/[\w/.-]+\.md(?:#[\w-]+)?")
_CODE_DIRS = (
    "domain",
    "application",
    "adapters",
    "entrypoints",
    "contracts",
    "tests",
    "benchmarks",
)


def test_what_the_code_cites_of_docs_is_there() -> None:
    broken = []
    for folder in _CODE_DIRS:
        for module in (ROOT / folder).rglob("*.py"):
            for cite in _CODE_CITE.findall(module.read_text()):
                file_part, _, anchor = cite.partition("#")
                path = ROOT / file_part
                if not path.exists() or (anchor and anchor not in _anchors(path)):
                    broken.append(f"{_rel(module)}: {cite}")
    assert broken == []


def test_the_checks_see_the_guides() -> None:
    names = {_rel(doc) for doc in DOCS}
    assert {"README.md", "docs/design.md", "docs/http-api.md", "docs/cli.md"} <= names
    assert _unknown_command(["admin", "key", "create"]) is None
    assert _unknown_command(["remeber"]) == "remeber"
    assert any(route.fullmatch("/api/memory/sources/abc") for route in _routes())
