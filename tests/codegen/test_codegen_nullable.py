"""Nullable typed outputs: ``-> T | None`` and ``Optional`` output fields, from annotation to SDK text.

The catalog's ``find_user`` and ``read_note`` entries (rendered in the
goldens, type-checked by Deno) are exactly what ``@tool`` makes of these
functions, and the registry runs them: ``None`` is a value, anything else
off the schema is still ``OUTPUT_INVALID``.
"""

from __future__ import annotations

from typing import Literal, TypedDict

import pytest
from codegen_catalog import CATALOG

from dsh_tools import JsonValue, ToolExecutionInput, boot, tool
from dsh_tools.json_values import thaw_json
from dsh_tools_codegen import json_schema_to_ts, render_tools_sdk


class Manager(TypedDict):
    login: str


class User(TypedDict):
    name: str
    email: str | None
    role: Literal["admin", "member"] | None
    manager: Manager | None
    teams: list[str] | None


USERS: dict[str, object] = {
    "ada": {"name": "Ada", "email": None, "role": "admin", "manager": None, "teams": None},
    "bob": {"name": "Bob", "email": "bob@example.com", "role": None, "manager": {"login": "ada"}, "teams": ["core"]},
    "eve": {"name": "Eve", "email": 7, "role": "root", "manager": None, "teams": None},  # off the schema
}


@tool
async def find_user(login: str) -> User | None:
    """Look a user up by login; null when there is none."""
    return USERS.get(login)  # type: ignore[return-value]  # eve is deliberately wrong


@tool
async def read_note(key: str) -> str | None:
    """The note's text; null when it was never written."""
    return {"todo": "ship it"}.get(key)


def catalog_entry(name: str) -> dict[str, object]:
    return next(entry for entry in CATALOG if entry["name"] == name)


@pytest.mark.parametrize("definition", [find_user, read_note], ids=lambda d: d.name)
def test_tool_maps_nullable_outputs_to_the_catalog_schemas(definition: object) -> None:
    entry = catalog_entry(definition.name)  # type: ignore[attr-defined]
    assert thaw_json(definition.output_schema) == entry["output_schema"]  # type: ignore[attr-defined]
    assert thaw_json(definition.parameters) == entry["parameters"]  # type: ignore[attr-defined]


def test_nullable_outputs_render_as_unions_with_null() -> None:
    assert json_schema_to_ts(catalog_entry("read_note")["output_schema"]) == "string | null"
    sdk = render_tools_sdk([catalog_entry("find_user"), catalog_entry("read_note")])
    assert '  read_note(args: {\n    key: string;\n  }): Promise<string | null>;' in sdk
    assert "    email: string | null;\n" in sdk
    assert '    role: "admin" | "member" | null;\n' in sdk


async def test_the_registry_runs_nullable_typed_tools() -> None:
    ctx = boot()
    ctx.tools.register(find_user)
    ctx.tools.register(read_note)

    async def call(name: str, arguments: dict[str, JsonValue]) -> tuple[bool, str, object]:
        result = await ctx.tools.execute(ToolExecutionInput("c", name, arguments))
        return result.is_error, result.text, thaw_json(result.value)

    assert await call("read_note", {"key": "todo"}) == (False, "ship it", "ship it")
    assert await call("read_note", {"key": "nope"}) == (False, "null", None)
    assert await call("find_user", {"login": "nobody"}) == (False, "null", None)
    assert (await call("find_user", {"login": "bob"}))[2] == USERS["bob"]
    ada_error, _, ada = await call("find_user", {"login": "ada"})
    assert not ada_error and ada == USERS["ada"]
    eve_error, eve_text, _ = await call("find_user", {"login": "eve"})
    assert eve_error
    assert "email: expected string or null, got integer" in eve_text
    assert "role: expected one of" in eve_text
