"""The README works from a fresh clone."""

from pathlib import Path

README = (Path(__file__).resolve().parents[3] / "README.md").read_text()


def test_the_readme_links_nothing_outside_the_clone() -> None:
    assert "../shared" not in README


def test_the_readme_says_how_to_reach_the_installed_command() -> None:
    assert ".venv/bin/tessera" in README and ".venv/bin/activate" in README
    quick_start = README.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    assert ".venv/bin/pip install -e . && .venv/bin/tessera serve" in quick_start
