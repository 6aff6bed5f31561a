"""Issue 34, item 6: the journal backlog a PostgreSQL store keeps while its database is away, on its own.

The failover tests drive it through a real server restart; these pin its
rules where no server is needed: bounded, a record's later version in its
place (never counted as new), events appended, and taking it empties it.
"""

from __future__ import annotations

import pytest

from dsh_tools.store.backlog import JournalBacklog
from dsh_tools.store.rows import JournalRow, journal_rows

from dsh_tools.store import SessionEvent

from test_store_contract import record


def rows(*record_ids: str, events: int = 0) -> list[JournalRow]:
    made, refused = journal_rows(
        [record(record_id) for record_id in record_ids],
        [SessionEvent("a1", f"e{n}", {}, float(n)) for n in range(events)],
        64 * 1024,
    )
    assert not refused
    return made


def test_backlog_holds_at_most_its_limit_and_counts_the_rest() -> None:
    backlog = JournalBacklog(3)
    assert backlog.hold(rows("r1", "r2")) == 0
    assert backlog.hold(rows("r3", "r4", events=1)) == 2  # r3 fits; r4 and the event do not
    assert (len(backlog), backlog.dropped) == (3, 2)


def test_backlog_a_later_version_takes_its_records_place_even_when_full() -> None:
    backlog = JournalBacklog(2)
    backlog.hold(rows("r1", "r2"))
    later = rows("r1")
    assert backlog.hold(later) == 0 and len(backlog) == 2
    assert [row.record_id for row in backlog.take([])] == ["r1", "r2"]


def test_backlog_take_puts_held_rows_first_and_lets_newer_versions_win() -> None:
    backlog = JournalBacklog(10)
    backlog.hold(rows("r1", "r2", events=1))
    newer = rows("r2", "r3")
    taken = backlog.take(newer)
    assert [(row.record_id, row.statement == newer[0].statement) for row in taken] == [
        ("r1", True),
        (None, False),
        ("r2", True),
        ("r3", True),
    ]
    assert taken[2] is newer[0] and len(backlog) == 0


def test_backlog_dropping_everything_counts_it() -> None:
    backlog = JournalBacklog(10)
    backlog.hold(rows("r1", events=2))
    assert backlog.drop_all() == 3 and backlog.dropped == 3 and len(backlog) == 0


@pytest.mark.parametrize("limit", [-1, 1.5, "10", True])
def test_backlog_limit_must_be_a_non_negative_int(limit: object) -> None:
    with pytest.raises(ValueError):
        JournalBacklog(limit)  # type: ignore[arg-type]
