"""A remembered document as blocks: headings, sentences with numbered citations, gaps."""

from entrypoints.web.documents import blocks

_ID_A = "01m8jcb8ssqtjjh8ne55fzh4r1"
_ID_B = "01m8jcb3qrp156k122dtvep3sw"


def test_the_drafters_markdown_reads_as_blocks_with_numbered_citations() -> None:
    text = (
        f"# ledger\n\n## Summary\n\n- It keeps entries. [{_ID_A}]\n- It replays. [{_ID_B}][{_ID_A}]"
        "\n\n## Open questions\n\n_Gap: no memory this audience may read supports this section._\n"
    )
    found, numbers = blocks(text)
    assert [(b.kind, b.text) for b in found] == [
        ("title", "ledger"),
        ("heading", "Summary"),
        ("item", "It keeps entries."),
        ("item", "It replays."),
        ("heading", "Open questions"),
        ("gap", "Gap: no memory this audience may read supports this section."),
    ]
    assert found[3].cites == [_ID_B, _ID_A] and numbers == {_ID_A: 1, _ID_B: 2}


def test_a_line_it_does_not_know_is_plain_text() -> None:
    found, numbers = blocks("[redacted: the plan]\nPlain words [not an id]")
    assert [(b.kind, b.text) for b in found] == [
        ("text", "[redacted: the plan]"),
        ("text", "Plain words [not an id]"),
    ]
    assert numbers == {}
