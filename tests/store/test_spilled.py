"""Spilled results in every store: kept once, read back by exact character pages, only by their agent,
pruned with the journal; the schema upgrade adds their tables to a version-1 file."""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path

import pytest

from dsh_tools.store import CallStore, MemoryStore, SpilledPage, SpillStore, SqliteStore
from dsh_tools.store import sql
from dsh_tools.store.spilled import MAX_PAGE_CHARS, PART_CHARS, mint_locator, valid_locator

TEXT = ("añb€c😀" * 40_000) + "end"  # one-, two-, three- and four-byte characters, over several parts


def spill_store(store: CallStore) -> SpillStore:
    assert isinstance(store, SpillStore)
    return store


async def test_pages_are_exact_character_slices_at_any_offset(store: CallStore) -> None:
    spilled = spill_store(store)
    locator = mint_locator()
    await spilled.keep_spilled(locator, "agent-1", TEXT)
    for offset, limit in ((0, 10), (1, 1), (3, 7), (PART_CHARS - 2, 5), (PART_CHARS, PART_CHARS), (len(TEXT) - 3, 100)):
        page = await spilled.read_spilled(locator, "agent-1", offset, limit)
        assert page is not None
        expected = TEXT[offset : offset + limit]
        assert page == SpilledPage(expected, offset, offset + len(expected) if offset + len(expected) < len(TEXT) else None, len(TEXT))
    whole, at = [], 0
    while True:
        page = await spilled.read_spilled(locator, "agent-1", at, MAX_PAGE_CHARS * 10)  # a limit past the cap is the cap
        assert page is not None and len(page.text) <= MAX_PAGE_CHARS
        whole.append(page.text)
        if page.next_offset is None:
            break
        at = page.next_offset
    assert "".join(whole) == TEXT


async def test_out_of_range_offsets_are_empty_pages_and_bad_ones_errors(store: CallStore) -> None:
    spilled = spill_store(store)
    locator = mint_locator()
    await spilled.keep_spilled(locator, "a", "short")
    assert await spilled.read_spilled(locator, "a", 5, 10) == SpilledPage("", 5, None, 5)
    assert await spilled.read_spilled(locator, "a", 10**12, 10) == SpilledPage("", 10**12, None, 5)
    last = 2**53 - 1  # the largest offset read: past every text, and within every store's integer column
    assert await spilled.read_spilled(locator, "a", last, 10) == SpilledPage("", last, None, 5)
    for offset, limit in ((-1, 10), (0, 0), (0, -5), (2**53, 10), (2**64, 10), (10**30, 10)):
        with pytest.raises(ValueError):
            await spilled.read_spilled(locator, "a", offset, limit)
    empty = mint_locator()
    await spilled.keep_spilled(empty, "a", "")
    assert await spilled.read_spilled(empty, "a", 0, 10) == SpilledPage("", 0, None, 0)


@pytest.mark.parametrize(
    "forged", ["", "res_", "res_" + "A" * 23, "res_" + "A" * 25, "x" * 10_000, "res_\x00" + "A" * 23, "res_\ud800" + "A" * 23, "' OR 1=1 --"]
)
async def test_foreign_forged_and_pruned_locators_read_as_nothing(store: CallStore, forged: str) -> None:
    spilled = spill_store(store)
    locator = mint_locator()
    await spilled.keep_spilled(locator, "owner", "secret text")
    assert await spilled.read_spilled(locator, "someone-else", 0, 100) is None
    assert await spilled.read_spilled(locator, "owner\x00", 0, 100) is None
    assert await spilled.read_spilled(forged, "owner", 0, 100) is None
    assert await spilled.read_spilled(mint_locator(), "owner", 0, 100) is None
    assert (await spilled.read_spilled(locator, "owner", 0, 100)) is not None
    await store.prune(before=time.time() + 1)
    assert await spilled.read_spilled(locator, "owner", 0, 100) is None


async def test_agent_ids_are_exact_even_with_nul_and_lone_surrogates(store: CallStore) -> None:
    spilled = spill_store(store)
    locator = mint_locator()
    await spilled.keep_spilled(locator, "a\x00b\ud800", "kept")
    assert await spilled.read_spilled(locator, "a\x00b\ud800", 0, 10) is not None
    assert await spilled.read_spilled(locator, "a\ufffdb\ufffd", 0, 10) is None


def test_locators_carry_at_least_128_random_bits() -> None:
    made = {mint_locator() for _ in range(1000)}
    assert len(made) == 1000 and all(valid_locator(locator) for locator in made)
    assert all(len(locator) - len("res_") >= 128 / 6 for locator in made)  # base64: six bits a character


async def test_a_memory_store_drops_its_oldest_values_past_its_bound() -> None:
    store = MemoryStore(max_spilled_bytes=100)
    first, second = mint_locator(), mint_locator()
    await store.keep_spilled(first, "a", "x" * 60)
    await store.keep_spilled(second, "a", "y" * 60)
    assert await store.read_spilled(first, "a", 0, 1) is None
    assert await store.read_spilled(second, "a", 0, 1) == SpilledPage("y", 0, 1, 60)
    with pytest.raises(ValueError, match="past this MemoryStore's max_spilled_bytes"):
        await store.keep_spilled(mint_locator(), "a", "z" * 101)  # never kept: no locator may name a dropped text
    assert await store.read_spilled(second, "a", 0, 1) == SpilledPage("y", 0, 1, 60)  # and nothing was dropped for it


def test_a_version_1_sqlite_file_gains_the_spilled_tables_through_every_migration(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    with sqlite3.connect(path) as db:
        for statement in sql.Dialect(serial="INTEGER PRIMARY KEY AUTOINCREMENT", placeholder="?")._first():
            db.execute(statement)
        db.execute("INSERT INTO dsh_schema (version) VALUES (1)")
    SqliteStore(path)
    with sqlite3.connect(path) as db:
        assert db.execute("SELECT version FROM dsh_schema").fetchall() == [(sql.SCHEMA_VERSION,)]
        assert db.execute("SELECT count(*) FROM dsh_spilled_parts").fetchone() == (0,)


async def test_a_fresh_file_and_an_upgraded_one_keep_and_read_alike(tmp_path: Path) -> None:
    async with SqliteStore(tmp_path / "new.db") as store:
        locator = mint_locator()
        await store.keep_spilled(locator, "a", TEXT)
        page = await store.read_spilled(locator, "a", PART_CHARS - 1, 2)
        assert page is not None and page.text == TEXT[PART_CHARS - 1 : PART_CHARS + 1]
