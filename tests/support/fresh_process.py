"""Python code run in a fresh interpreter at the repository root: what importing loads there,
unclouded by what the test process has imported already."""

import subprocess
import sys
from pathlib import Path

__all__ = ["ROOT", "run_fresh"]

ROOT = Path(__file__).resolve().parents[2]


def run_fresh(code: str) -> "subprocess.CompletedProcess[str]":
    """``code`` run by ``python -c`` in a new process; raises if it fails."""
    return subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    )
