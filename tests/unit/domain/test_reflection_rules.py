"""The deterministic extractor on made-up text: what it finds, where, and what it misses."""

from domain.reflection.candidates import CandidateType, Extracted
from domain.reflection.rules import extract_by_rules

SESSION = (
    "Maya (user): We decided to go with SurrealDB for storage. I will write the migration.\n\n"
    "assistant: Noted. Anything else?\n\n"
    "Maya (user): I prefer short standups. The launch review is on 2026-04-02 with Tom Baker."
)


def _of(found: list[Extracted], kind: CandidateType) -> list[Extracted]:
    return [f for f in found if f.type is kind]


def _quote(text: str, found: Extracted) -> list[str]:
    return [text[s.start : s.end] for s in found.spans]


def test_a_session_yields_each_kind_with_spans_that_quote_the_sentence() -> None:
    found = extract_by_rules("s1", SESSION)
    (decision,) = _of(found, CandidateType.DECISION)
    assert decision.text == "We decided to go with SurrealDB for storage."
    assert _quote(SESSION, decision) == [decision.text]
    (task,) = _of(found, CandidateType.TASK)
    assert task.text == "I will write the migration."
    (preference,) = _of(found, CandidateType.PREFERENCE)
    assert preference.text == "I prefer short standups."
    (event,) = _of(found, CandidateType.EVENT)
    assert "2026-04-02" in event.text
    for item in found:
        for span in item.spans:
            assert span.source_id == "s1"


def test_speakers_and_named_people_are_persons() -> None:
    found = extract_by_rules("s1", SESSION)
    people = {p.text: p for p in _of(found, CandidateType.PERSON)}
    assert set(people) == {"Maya", "Tom Baker"}
    assert _quote(SESSION, people["Maya"]) == ["Maya", "Maya"]
    assert people["Maya"].confidence > people["Tom Baker"].confidence


def test_a_speaker_who_decides_commits_or_prefers_is_related_to_it() -> None:
    relations = [
        r.relation for r in _of(extract_by_rules("s1", SESSION), CandidateType.RELATIONSHIP)
    ]
    assert [(r.subject, r.predicate, r.object_type) for r in relations if r] == [
        ("Maya", "decided", CandidateType.DECISION),
        ("Maya", "committed_to", CandidateType.TASK),
        ("Maya", "prefers", CandidateType.PREFERENCE),
    ]


def test_notes_checklists_todos_and_decision_lines() -> None:
    note = (
        "Decision: ship weekly.\n- [ ] rotate the keys\nTODO call the bank\naction item: book rooms"
    )
    found = extract_by_rules("n", note)
    assert [(f.type, f.text) for f in found] == [
        (CandidateType.DECISION, "Decision: ship weekly."),
        (CandidateType.TASK, "- [ ] rotate the keys"),
        (CandidateType.TASK, "TODO call the bank"),
        (CandidateType.TASK, "action item: book rooms"),
    ]
    assert found[0].confidence > found[2].confidence - 0.01


def test_message_participants_cite_the_source_without_a_span() -> None:
    found = extract_by_rules("m", "Hello there.", participants=["ana@example.com", " "])
    (person,) = found
    assert (person.type, person.text, person.spans) == (
        CandidateType.PERSON,
        "ana@example.com",
        (),
    )


def test_plain_text_states_nothing() -> None:
    assert extract_by_rules("s", "The weather was mild and the river was high.") == []


def test_days_months_and_pronouns_are_not_people() -> None:
    found = extract_by_rules("s", "We met with Monday's crew. Thanks This. I talked with The.")
    assert _of(found, CandidateType.PERSON) == []


def test_blind_spot_negation_still_reads_as_a_decision() -> None:
    # documented: no negation handling; a reviewer rejects it
    (found,) = extract_by_rules("s", "We decided not to migrate.")
    assert found.type is CandidateType.DECISION


def test_long_sentences_are_clipped_but_keep_their_full_span() -> None:
    text = "We decided " + "very " * 300 + "firmly."
    (found,) = extract_by_rules("s", text)
    assert len(found.text) == 1000 and found.spans[0].end == len(text)
