"""benchmarks.rebuild_scan reports whether a page's cost grows with its position."""

from benchmarks.rebuild_scan import tenths


def test_tenths_average_the_first_middle_and_last_pages() -> None:
    pages = [float(n) for n in range(20)]  # a tenth: two pages
    assert tenths(pages) == {
        "first_tenth_s": 0.5,
        "middle_tenth_s": 9.5,
        "last_tenth_s": 18.5,
    }


def test_few_pages_still_give_each_tenth() -> None:
    assert tenths([2.0, 4.0]) == {
        "first_tenth_s": 2.0,
        "middle_tenth_s": 4.0,
        "last_tenth_s": 4.0,
    }
    assert tenths([]) == {}
