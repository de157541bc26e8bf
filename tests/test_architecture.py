"""The hexagon's dependency rules, checked rather than hoped for."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_import_contracts_hold() -> None:
    from importlinter.cli import lint_imports

    assert lint_imports(config_filename=str(ROOT / "pyproject.toml")) == 0


def test_importing_the_cli_loads_no_model_runtime_and_reads_no_settings() -> None:
    probe = (
        "import sys, os\n"
        "os.environ['TESSERA_PORT'] = 'not-a-number'\n"  # would fail if settings were read
        "import entrypoints.cli, entrypoints.container, entrypoints.http.app\n"
        "heavy = [m for m in ('onnxruntime', 'torch', 'sentence_transformers', 'tiktoken',"
        " 'openai', 'google.genai') if m in sys.modules]\n"
        "print(','.join(heavy))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == ""
