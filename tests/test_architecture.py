"""The hexagon's dependency rules, checked rather than hoped for."""

from tests.support.fresh_process import ROOT, run_fresh


def test_import_contracts_hold() -> None:
    from importlinter.cli import lint_imports

    assert lint_imports(config_filename=str(ROOT / "pyproject.toml")) == 0


def test_importing_the_cli_loads_no_model_runtime_and_reads_no_settings() -> None:
    probe = (
        "import sys, os\n"
        "os.environ['TESSERA_PORT'] = 'not-a-number'\n"  # would fail if settings were read
        "import entrypoints.cli, entrypoints.container, entrypoints.http.app\n"
        "heavy = [m for m in ('onnxruntime', 'torch', 'sentence_transformers', 'tiktoken',"
        " 'openai', 'google.genai', 'jinja2') if m in sys.modules]\n"
        "print(','.join(heavy))\n"
    )
    assert run_fresh(probe).stdout.strip() == ""


def test_the_wheel_installs_the_layers_and_contracts_but_not_tests_or_benchmarks() -> None:
    import tomllib

    from setuptools import find_packages

    found = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    found = found["packages"]["find"]
    packages = find_packages(str(ROOT), include=found["include"], exclude=found["exclude"])
    tops = {name.split(".")[0] for name in packages}
    assert tops == {"domain", "application", "adapters", "entrypoints", "contracts"}


def test_the_suites_without_fixtures_import_without_pytest() -> None:
    """Adapter authors may import these to read or type-check against them; pytest is
    loaded when one of their tests runs. (Suites that declare a fixture or parametrize
    a test need pytest when their class is defined.)"""
    probe = (
        "import sys\n"
        "sys.modules['pytest'] = None\n"  # any import of pytest fails
        "import contracts, contracts.embedder, contracts.llm, contracts.graph_store,"
        " contracts.reranker, contracts.candidate_store, contracts.synthesis_runs\n"
    )
    run_fresh(probe)
