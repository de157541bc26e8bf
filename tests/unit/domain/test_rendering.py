from datetime import UTC, datetime, timedelta, timezone

from domain.rendering import GAP, PackEpisode, PackLine, render_pack

MAY_8 = datetime(2023, 5, 8, 19, 42, tzinfo=UTC)


def test_turns_read_as_an_exchange_with_speaker_role_and_the_episodes_date() -> None:
    text = render_pack(
        [
            PackEpisode(
                source_id="s1",
                occurred_at=MAY_8,
                lines=[
                    PackLine(
                        text="Did you adopt\nthe cat?",
                        role="user",
                        speaker="Sam",
                        turn_index=3,
                        occurred_at=MAY_8,
                    ),
                    PackLine(
                        text="Yes!! Pixel.",
                        role="assistant",
                        speaker="Maya",
                        turn_index=4,
                        occurred_at=MAY_8,
                    ),
                    PackLine(
                        text="I ran a marathon last weekend",
                        role="assistant",
                        speaker="Maya",
                        turn_index=9,
                        occurred_at=MAY_8,
                    ),
                    PackLine(
                        text="(ended)",
                        role="system",
                        turn_index=10,
                        occurred_at=MAY_8 + timedelta(hours=1),
                    ),
                ],
            ),
            PackEpisode(source_id="n1", occurred_at=None, lines=[PackLine(text="A note.")]),
        ]
    )
    assert text == (
        "## [1] Conversation of Monday 2023-05-08 19:42 +0000\n"
        "Sam: Did you adopt the cat?\n"
        "Maya: Yes!! Pixel.\n"
        f"{GAP}\n"
        "Maya: I ran a marathon last weekend\n"
        "[Monday 2023-05-08 20:42 +0000] system: (ended)\n"
        "\n"
        "## [2] Source (date unknown)\n"
        "A note."
    )


def test_a_date_keeps_its_offset_and_an_empty_pack_is_empty() -> None:
    lisbon = datetime(2023, 6, 12, 9, 5, tzinfo=timezone(timedelta(hours=1)))
    text = render_pack(
        [PackEpisode(source_id="s", occurred_at=lisbon, lines=[PackLine(text="hi", role="user")])]
    )
    assert text.splitlines()[0] == "## [1] Conversation of Monday 2023-06-12 09:05 +0100"
    assert render_pack([]) == ""


def test_a_corrected_source_says_so_in_its_header_and_skipped_turns_leave_a_gap() -> None:
    line = PackLine(text="hi", role="user", turn_index=1)
    stale = PackEpisode(source_id="s1", occurred_at=None, lines=[line], stale=True)
    assert render_pack([stale]).splitlines()[0] == (
        "## [1] Conversation (date unknown) — marked stale"
    )
    replaced = PackEpisode(
        source_id="s1", occurred_at=None, lines=[line], stale=True, superseded_by="s2"
    )
    assert render_pack([replaced]).splitlines()[0] == (
        "## [1] Conversation (date unknown) — superseded by source s2"
    )
    newer = PackEpisode(source_id="s2", occurred_at=None, lines=[line])
    assert render_pack([newer, replaced]).splitlines()[3] == (
        "## [2] Conversation (date unknown) — superseded by [1]"
    )
    later = PackLine(text="yo", role="assistant", turn_index=3)
    assert GAP in render_pack([PackEpisode(source_id="s", occurred_at=None, lines=[line, later])])


def test_a_time_without_an_offset_leaves_no_trailing_space() -> None:
    naive = PackEpisode(
        source_id="s1", occurred_at=datetime(2023, 5, 8, 19, 42), lines=[PackLine(text="x")]
    )
    header = render_pack([naive]).splitlines()[0]
    assert header == "## [1] Source of Monday 2023-05-08 19:42"
