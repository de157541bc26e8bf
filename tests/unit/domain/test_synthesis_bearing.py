"""What a synthesis may quote: diff lines are not sentences; a source must bear on the topic."""

from domain.query_words import query_words
from domain.relevance_gate import Floors
from domain.synthesis.bearing import WORDS_ONLY, LeftOutReason, bears_on
from domain.synthesis.text import split_sentences, without_patches

MAIL = """The reset path now takes the lock before it frees the ring buffer.

---
diff --git a/drivers/net/foo.c b/drivers/net/foo.c
index 1234abc..5678def 100644
--- a/drivers/net/foo.c
+++ b/drivers/net/foo.c
@@ -10,7 +10,8 @@ static int foo_reset(struct foo *f)
 {
-\tfree_ring(f);
+\tspin_lock(&f->lock); /* we decided this because of a race */

 \treturn 0;
 }
Thanks for looking at this patch quickly, it matters for the release.
"""


def test_the_lines_of_a_diff_are_never_sentences() -> None:
    prose, removed = without_patches(MAIL)
    assert removed[0].startswith("diff --git") and removed[-1] == " }"
    assert "spin_lock" not in prose and "Thanks for looking" in prose
    sentences = split_sentences(MAIL)
    assert not any("decided" in s or "free_ring" in s for s in sentences)
    assert sentences[0] == "The reset path now takes the lock before it frees the ring buffer."
    assert sentences[-1].startswith("Thanks for looking")


def test_text_without_a_diff_is_left_alone() -> None:
    notes = "- a list item that is long enough to quote\n- and another one, as long"
    assert without_patches(notes) == (notes, [])
    # a line that starts with "+" outside a diff is prose
    assert split_sentences("+1 from me on shipping it. We ship on Friday after the review.") == [
        "+1 from me on shipping it.",
        "We ship on Friday after the review.",
    ]


def test_a_source_bears_on_the_topic_by_words_or_by_meaning() -> None:
    terms = query_words("the storage engine architecture").terms
    floors = Floors(near=0.2, alone=0.4)
    relevant = "The storage engine keeps every source verbatim."
    lunch = "Lunch on Friday: the team decided on pizza because the cafe is closed."
    assert bears_on(terms, relevant, 0.1, floors)  # two of its words
    assert not bears_on(terms, lunch, 0.15, floors)
    assert bears_on(terms, lunch, 0.41, floors)  # very near in meaning alone
    one_word = "The engine of my car makes a noise."
    assert not bears_on(terms, one_word, 0.1, floors) and bears_on(terms, one_word, 0.25, floors)


def test_without_measured_floors_one_shared_word_is_needed() -> None:
    terms = query_words("the storage engine architecture").terms
    assert WORDS_ONLY.alone == float("inf")
    assert bears_on(terms, "The engine of my car makes a noise.", 0.05, None)
    assert not bears_on(terms, "Lunch is at noon.", 0.99, None)


def test_every_reason_a_source_is_left_out_has_words() -> None:
    assert all(reason.words for reason in LeftOutReason)
    assert "does not bear on the question" in LeftOutReason.OFF_TOPIC.words
