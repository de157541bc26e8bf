"""The import benchmark reads `-X importtime` lines: modules, own time, packages, optional ones."""

from benchmarks.import_times import OPTIONAL, read_log

_LOG = """\
INFO: a log line between the imports
import time: self [us] | cumulative | imported package
import time:       120 |        120 |   _io
import time:      2000 |       2500 | litestar
import time:       500 |        500 |     litestar.app
import time:       300 |        300 |   google.genai.types
import time:        80 |         80 | openai_compat
"""


def test_the_lines_are_read_and_summed() -> None:
    log = read_log(_LOG)
    assert [m for m, _ in log.rows] == [
        "_io",
        "litestar",
        "litestar.app",
        "google.genai.types",
        "openai_compat",
    ]
    assert log.modules == 5 and log.own_ms == 3.0
    assert log.by_package() == {"litestar": 2500, "google": 300, "_io": 120, "openai_compat": 80}


def test_an_optional_package_counts_by_its_own_name_or_a_submodule_only() -> None:
    log = read_log(_LOG)
    assert log.imported(OPTIONAL) == ["google.genai"]  # "openai_compat" is not openai
    assert read_log("").imported(OPTIONAL) == [] and read_log("").modules == 0
