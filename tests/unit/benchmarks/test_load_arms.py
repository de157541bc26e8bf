"""The load benchmark's arms: a mode, from which checkout, with which setting."""

from pathlib import Path

from benchmarks.load import arm_of


def test_a_plain_mode_is_served_by_this_checkout_as_it_is() -> None:
    assert arm_of("new") == ("new", None, None)


def test_a_setting_and_a_checkout_each_name_their_part() -> None:
    assert arm_of("new:TESSERA_BLAS_THREADS=auto") == (
        "new",
        None,
        ("TESSERA_BLAS_THREADS", "auto"),
    )
    assert arm_of("new@/work/old_wt") == ("new", Path("/work/old_wt"), None)
    assert arm_of("old@/w/x:TESSERA_A=1") == ("old", Path("/w/x"), ("TESSERA_A", "1"))
