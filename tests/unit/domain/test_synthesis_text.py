"""Sentences a synthesis may quote, diffs left out, and how much of a sentence a source holds."""

from domain.synthesis.text import (
    MAX_SENTENCE_CHARS,
    MIN_SENTENCE_CHARS,
    lexical_support,
    shares_run,
    split_sentences,
    without_patches,
)


def test_sentences_between_the_length_bounds_are_kept_whitespace_collapsed() -> None:
    shortest = "A" + "a" * (MIN_SENTENCE_CHARS - 2) + "."
    longest = "B" + "b" * (MAX_SENTENCE_CHARS - 2) + "."
    text = f"Thanks. {shortest} {longest} C{'c' * MAX_SENTENCE_CHARS}. 1234567890 1234567890 12345."
    assert split_sentences(text) == [shortest, longest]
    assert split_sentences("We moved  the\nlaunch to   Friday morning.") == [
        "We moved the launch to Friday morning."
    ]


def test_quoted_reply_lines_are_dropped() -> None:
    text = "We moved the launch to Friday.\n  > On Monday you wrote: keep it on Thursday"
    assert split_sentences(text) == ["We moved the launch to Friday."]


def test_a_diff_is_cut_out_and_a_paragraph_break_stands_in_its_place() -> None:
    text = "\n".join(
        [
            "Here is the fix for the launch script.",
            "diff --git a/run.sh b/run.sh",
            "index 1a2b3c4..5d6e7f8 100644",
            "--- a/run.sh",
            "+++ b/run.sh",
            "@@ -1,2 +1,2 @@",
            " set -e",
            "-old line",
            "+new line",
            "",
            "\\ No newline at end of file",
            "Let me know if it works for you.",
        ]
    )
    kept, removed = without_patches(text)
    assert kept == ("Here is the fix for the launch script.\n\n\nLet me know if it works for you.")
    assert removed[0] == "diff --git a/run.sh b/run.sh" and removed[-1].startswith("\\")
    assert len(removed) == 10
    assert split_sentences(text) == [
        "Here is the fix for the launch script.",
        "Let me know if it works for you.",
    ]
    assert without_patches("no diff here\nat all") == ("no diff here\nat all", [])


def test_lexical_support_is_the_share_of_the_sentences_words_the_source_holds() -> None:
    assert lexical_support("The kayak is green", "my kayak was red") == 0.5
    assert lexical_support("the and of", "anything") == 0.0
    assert lexical_support("kayak green", "a green kayak") == 1.0


def test_shares_run_finds_eight_words_in_a_row() -> None:
    hidden = "one two three four five six seven eight nine"
    assert shares_run("x one two three four five six seven eight y", hidden)
    assert not shares_run("one two three four five six seven x eight", hidden)
    assert not shares_run(hidden, "one two three")
    assert shares_run("four five six", hidden, run=3)
