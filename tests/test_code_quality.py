"""ruff and mypy --strict are part of the suite, so a red lint is a red build."""

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _tool(name: str) -> str:
    path = shutil.which(name, path=str(Path(sys.executable).parent))
    if path is None:
        pytest.fail(f"{name} is not installed in this environment (pip install -e '.[dev]')")
    return path


def test_ruff_is_clean() -> None:
    out = subprocess.run(
        [_tool("ruff"), "check", "--no-cache", "."],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert out.returncode == 0, out.stdout + out.stderr


def test_mypy_strict_is_clean() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "mypy"], cwd=ROOT, capture_output=True, text=True, check=False
    )
    assert out.returncode == 0, out.stdout[-5000:] + out.stderr[-2000:]


#: a tracker reference ("i" "ssue 12", "i" "ssue-18", "i" "ssue #3", "the i" "ssue's target"):
#: history lives in git (the docs' own test reads them with it: ``test_docs``)
TRACKER = re.compile(r"\b" + "is" + r"sues?[- ]?#?\d+|\b(?:the|this) " + "is" + r"sue\b", re.I)
_SCANNED = ("domain", "application", "adapters", "entrypoints", "contracts", "benchmarks", "tests")


def test_no_file_cites_a_tracker_number() -> None:
    files = [
        p
        for folder in _SCANNED
        for p in (ROOT / folder).rglob("*")
        if p.suffix in {".py", ".md", ".html"}
    ]
    cited = [
        f"{p.relative_to(ROOT)}: {m.group(0)}"
        for p in files
        for m in TRACKER.finditer(p.read_text(encoding="utf-8", errors="replace"))
    ]
    assert cited == []
