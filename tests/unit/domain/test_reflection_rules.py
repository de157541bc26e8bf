"""The deterministic extractor on made-up text: what it finds, where, and what it misses."""

from collections.abc import Sequence

from adapters.text.sentences import SentencexSegmenter
from domain.reflection.candidates import MAX_CANDIDATE_CHARS, CandidateType, Extracted
from domain.reflection.rules import extract_by_rules

SESSION = (
    "Maya (user): We decided to go with SurrealDB for storage. I will write the migration.\n\n"
    "assistant: Noted. Anything else?\n\n"
    "Maya (user): I prefer short standups. The launch review is on 2026-04-02 with Tom Baker."
)


_SPLIT = SentencexSegmenter().sentences


def _rules(source_id: str, text: str, participants: Sequence[str] = ()) -> list[Extracted]:
    return extract_by_rules(source_id, text, _SPLIT, participants)


def _of(found: list[Extracted], kind: CandidateType) -> list[Extracted]:
    return [f for f in found if f.type is kind]


def _quote(text: str, found: Extracted) -> list[str]:
    return [text[s.start : s.end] for s in found.spans]


def test_a_session_yields_each_kind_with_spans_that_quote_the_sentence() -> None:
    found = _rules("s1", SESSION)
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
    found = _rules("s1", SESSION)
    people = {p.text: p for p in _of(found, CandidateType.PERSON)}
    assert set(people) == {"Maya", "Tom Baker"}
    assert _quote(SESSION, people["Maya"]) == ["Maya", "Maya"]
    assert people["Maya"].confidence > people["Tom Baker"].confidence


def test_a_speaker_who_decides_commits_or_prefers_is_related_to_it() -> None:
    relations = [r.relation for r in _of(_rules("s1", SESSION), CandidateType.RELATIONSHIP)]
    assert [(r.subject, r.predicate, r.object_type) for r in relations if r] == [
        ("Maya", "decided", CandidateType.DECISION),
        ("Maya", "committed_to", CandidateType.TASK),
        ("Maya", "prefers", CandidateType.PREFERENCE),
    ]


def test_notes_checklists_todos_and_decision_lines() -> None:
    note = (
        "Decision: ship weekly.\n- [ ] rotate the keys\nTODO call the bank\naction item: book rooms"
    )
    found = _rules("n", note)
    assert [(f.type, f.text) for f in found] == [
        (CandidateType.DECISION, "Decision: ship weekly."),
        (CandidateType.TASK, "- [ ] rotate the keys"),
        (CandidateType.TASK, "TODO call the bank"),
        (CandidateType.TASK, "action item: book rooms"),
    ]
    assert found[0].confidence > found[2].confidence - 0.01


def test_message_participants_cite_the_source_without_a_span() -> None:
    found = _rules("m", "Hello there.", participants=["ana@example.com", " "])
    (person,) = found
    assert (person.type, person.text, person.spans) == (
        CandidateType.PERSON,
        "ana@example.com",
        (),
    )


def test_plain_text_states_nothing() -> None:
    assert _rules("s", "The weather was mild and the river was high.") == []


def test_days_months_and_pronouns_are_not_people() -> None:
    found = _rules("s", "We met with Monday's crew. Thanks This. I talked with The.")
    assert _of(found, CandidateType.PERSON) == []


def test_blind_spot_negation_still_reads_as_a_decision() -> None:
    # documented: no negation handling; a reviewer rejects it
    (found,) = _rules("s", "We decided not to migrate.")
    assert found.type is CandidateType.DECISION


def test_long_sentences_are_clipped_but_keep_their_full_span() -> None:
    text = "We decided " + "very " * 300 + "firmly."
    (found,) = _rules("s", text)
    assert len(found.text) == 1000 and found.spans[0].end == len(text)


def _statements(text: str) -> list[tuple[CandidateType, str]]:
    kinds = (CandidateType.DECISION, CandidateType.TASK, CandidateType.PREFERENCE)
    return [(f.type, f.text) for f in _rules("s", text) if f.type in kinds]


def test_a_version_number_does_not_cut_a_decision() -> None:
    text = "Decision: we will ship Tessera 1.0 on 2026-12-15 after the security review."
    assert _statements(text) == [(CandidateType.DECISION, text)]


def test_a_host_name_does_not_cut_a_task() -> None:
    text = "TODO: Ben must renew the TLS certificate for api.example.com"
    assert _statements(text) == [(CandidateType.TASK, text)]
    followed = text + ". Then tell Ana."
    assert _statements(followed) == [(CandidateType.TASK, text + ".")]


def test_abbreviations_decimals_initials_urls_and_addresses_end_no_sentence() -> None:
    decision, task = CandidateType.DECISION, CandidateType.TASK
    for kind, sentence in (
        (decision, "Dr. Okafor agreed to review it, e.g. the login, i.e. sessions, etc. today."),
        (decision, "We decided to raise the limit to 2.5 GB for J. R. Smith's team."),
        (task, "I will send https://docs.example.com/v1.2/guide.html to ana.lopez@example.org."),
        (decision, "We agreed to meet Mr. Baker at 9 a.m. in the U.S. office."),
        (decision, "We decided to pin numpy 2.1.3 and move config.yaml to /etc/tessera."),
    ):
        assert _statements(sentence + " The weather was mild.") == [(kind, sentence)], sentence


def test_quoted_text_stays_inside_its_sentence() -> None:
    text = 'Ana said "we decided to ship. Really." and left. The weather was mild.'
    assert _statements(text) == [
        (CandidateType.DECISION, 'Ana said "we decided to ship. Really." and left.')
    ]


def test_sentences_still_end_at_their_stops_and_at_line_breaks() -> None:
    text = "We decided to ship. I will write the notes! Do we need to wait?\nTODO book rooms"
    assert [t for _, t in _statements(text)] == [
        "We decided to ship.",
        "I will write the notes!",
        "Do we need to wait?",
        "TODO book rooms",
    ]


def test_a_numbered_step_keeps_its_number() -> None:
    found = _rules("s", "How to deploy:\n1. Build the image.\n2) Push it to the registry.")
    procedures = [f.text for f in found if f.type is CandidateType.PROCEDURE]
    assert procedures == ["How to deploy:", "1. Build the image.", "2) Push it to the registry."]


def test_spans_quote_the_text_with_a_splitter_that_returns_odd_ranges() -> None:
    text = "We decided to ship.\n\nI will write it."

    def odd(line: str) -> list[tuple[int, int]]:
        # an empty range, one past the line, then the whole line
        return [(0, 0), (0, len(line) + 5), (0, len(line))]

    found = extract_by_rules("s", text, odd)
    assert [(f.text, text[f.spans[0].start : f.spans[0].end]) for f in found] == [
        ("We decided to ship.", "We decided to ship."),
        ("I will write it.", "I will write it."),
    ]


def _lines(line: str) -> list[tuple[int, int]]:
    return [(0, len(line))]


def test_each_turn_is_its_own_speakers_even_after_a_single_line_break() -> None:
    text = "Ana (user): We decided to fly.\nBo (user): I will pack.\nCy (user): I prefer trains."
    relations = [f.relation for f in extract_by_rules("s", text, _lines) if f.relation]
    assert [(r.subject, r.predicate, r.object) for r in relations] == [
        ("Ana", "decided", "We decided to fly."),
        ("Bo", "committed_to", "I will pack."),
        ("Cy", "prefers", "I prefer trains."),
    ]
    assert all(r.subject_type is CandidateType.PERSON for r in relations)


def test_a_relationship_fits_the_speaker_and_predicate_into_the_candidate_limit() -> None:
    # "Maya committed to: " takes the speaker, the predicate and four characters
    room = MAX_CANDIDATE_CHARS - len("Maya") - len("committed_to") - 4
    fits = "I will " + "x" * (room - len("I will ") - 1) + "."
    over = fits[:-1] + "y."
    for sentence, clipped in ((fits, False), (over, True)):
        found = extract_by_rules("s", f"Maya (user): {sentence}", _lines)
        (rel,) = _of(found, CandidateType.RELATIONSHIP)
        obj = sentence[: room - 1] + "…" if clipped else sentence
        assert rel.text == f"Maya committed to: {obj}"
        assert rel.relation is not None and rel.relation.object == sentence


def test_a_statement_is_clipped_only_past_the_limit() -> None:
    exact = "TODO " + "x" * (MAX_CANDIDATE_CHARS - 5)
    (found,) = extract_by_rules("s", exact, _lines)
    assert found.text == exact
    (found,) = extract_by_rules("s", exact + "y", _lines)
    assert found.text == exact[: MAX_CANDIDATE_CHARS - 1] + "…"


def test_a_person_keeps_five_spans_and_their_highest_confidence() -> None:
    text = "\n".join(f"Tom Baker (user): turn {n}" for n in range(6))
    text += "\nMaya (user): I met with Tom Baker."
    people = {p.text: p for p in _of(extract_by_rules("s", text, _lines), CandidateType.PERSON)}
    tom = people["Tom Baker"]
    assert len(tom.spans) == 5 and tom.confidence == 0.95
    assert {text[s.start : s.end] for s in tom.spans} == {"Tom Baker"}
    cued = {p.text: p for p in _of(_rules("s", "I met with Tom Baker."), CandidateType.PERSON)}
    (span,) = cued["Tom Baker"].spans
    assert (span.start, span.end, cued["Tom Baker"].confidence) == (11, 20, 0.6)


def test_pieces_are_trimmed_and_a_blank_piece_cuts_nothing_short() -> None:
    text = "We decided to ship.   I will pack.   "

    def pieces(line: str) -> list[tuple[int, int]]:
        # a sentence, a blank piece, the next sentence, then blank pieces to the end
        return [(0, 19), (19, 22), (22, 34), (34, 36), (34, 37)]

    found = extract_by_rules("s", text, pieces)
    assert [(f.text, text[f.spans[0].start : f.spans[0].end]) for f in found] == [
        ("We decided to ship.", "We decided to ship."),
        ("I will pack.", "I will pack."),
    ]
    for lead in (" ", "   "):
        (found_one,) = extract_by_rules("s", f"{lead}We decided to ship.", _lines)
        assert found_one.text == "We decided to ship."
        assert found_one.spans[0].start == len(lead)


def test_a_marker_left_at_the_end_of_a_line_states_nothing() -> None:
    text = "We decided to ship. 2.\nTODO pack"

    def pieces(line: str) -> list[tuple[int, int]]:
        return [(0, 19), (19, 22)] if line.startswith("We") else [(0, len(line))]

    assert [f.text for f in extract_by_rules("s", text, pieces)] == [
        "We decided to ship.",
        "TODO pack",
    ]
