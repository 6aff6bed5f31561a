"""The Python SDK text: golden snapshot, valid Python that ``mypy --strict`` accepts, total, deterministic.

Regenerate the golden after an intended change with ``UPDATE_GOLDEN=1 pytest
tests/codegen`` and review the diff in git. The type check runs mypy once
over every rendered text of this module (the golden catalog, hostile names,
the hostile sets), so each text is checked as the model would receive it.
"""

from __future__ import annotations

import difflib
import os
import random
from pathlib import Path
from typing import Any

import pytest
from codegen_catalog import CATALOG
from mypy import api as mypy_api
from renderer_build import SOURCES_ONLY
from test_codegen_fast import random_schema
from test_codegen_hostile import HOSTILE_SETS
from value_shapes import frozen

import dsh_tools_codegen._python as python_sdk
from dsh_tools_codegen import SDK_USAGE_PYTHON, render_tools_sdk_python
from dsh_tools_codegen._pytypes import (
    Walk, _camel_rule, _comment, _named_type, _note, _plain_text, _type, camel, one_line, read_properties,
)
from dsh_tools_codegen._read import MAX_DEPTH

GOLDEN = Path(__file__).parent / "golden" / "catalog_tools.py"
FENCE_OPEN = "\n\n```python\n"

HOSTILE_NAMES: list[dict[str, Any]] = [
    {"name": name, "description": description, "parameters": parameters}
    for name, description, parameters in [
        ("class", "a keyword", {"type": "object", "properties": {"from": {"type": "string"}}}),
        ("__init__", "a dunder", {}),
        ("__mangled", None, {}),
        ("str", "shadows a builtin the text uses", {"type": "object", "properties": {"str": {"type": "integer"}}}),
        ("overload", "shadows typing.overload", {}),
        ("tools", "shadows the instance", {}),
        ("ToolError", "shadows the exception", {}),
        ("x\"\"\"; import os; '''", 'ends """ a docstring \\', {}),
        ("line\nbreak", "line\nbreak\r\u2028\u2029\x00", {"type": "object", "properties": {"a\nb": {"type": "string"}}}),
        ("lone\ud800surrogate", "\udfff", {"type": "object", "properties": {"\ud800": {"type": "string"}}}),
        ("", "empty name", {}),
        ("read_file", "twin stem 1", {}),
        ("readFile", "twin stem 2", {}),
        ("read-file", "twin stem 3", {}),
        ("read_file2", "a stem a twin's suffix could take", {"type": "object", "properties": {"o": {"type": "object", "properties": {"x": {"type": "string"}}}}}),
        ("has_self", "a property named self", {"type": "object", "properties": {"self": {"type": "string"}}}),
        ("has_args", "a property that shadows a class", {"type": "object", "properties": {"ReadFileArgs": {"type": "string"}}}),
        ("typed_out", "nullable output", {}),
        ("9lives", "starts with a digit", {}),
    ]
]
HOSTILE_NAMES[17]["output_schema"] = {"type": ["object", "null"], "properties": {"when": {"type": "number"}}, "required": ["when"]}


def block(sdk_text: str) -> str:
    """The content of the SDK text's single ``python`` fence, newline-terminated."""
    head, _, rest = sdk_text.partition(FENCE_OPEN)
    assert head == SDK_USAGE_PYTHON
    body, _, tail = rest.rpartition("```")
    assert tail == ""
    return body


def texts() -> dict[str, str]:
    rendered = {"catalog": render_tools_sdk_python(CATALOG), "hostile_names": render_tools_sdk_python(HOSTILE_NAMES)}
    for index, tools in enumerate(HOSTILE_SETS):
        rendered[f"hostile_set_{index}"] = render_tools_sdk_python(tools)
    return rendered


@pytest.fixture(scope="module")
def mypy_report(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, int]:
    folder = tmp_path_factory.mktemp("python_sdk")
    paths = []
    for name, text in texts().items():
        path = folder / f"sdk_{name}.py"
        path.write_text(block(text), encoding="utf-8")
        paths.append(str(path))
    stdout, stderr, status = mypy_api.run(["--strict", "--no-incremental", "--cache-dir", os.devnull, *paths])
    return stdout + stderr, status


def test_golden() -> None:
    actual = block(render_tools_sdk_python(CATALOG))
    if os.environ.get("UPDATE_GOLDEN") == "1":
        GOLDEN.write_text(actual, encoding="utf-8", newline="\n")
    expected = GOLDEN.read_text(encoding="utf-8")
    if actual != expected:
        diff = "".join(difflib.unified_diff(expected.splitlines(True), actual.splitlines(True), "golden", "rendered"))
        pytest.fail(f"golden/catalog_tools.py differs (UPDATE_GOLDEN=1 to accept):\n{diff}", pytrace=False)


@pytest.mark.parametrize("name", sorted(texts()))
def test_every_text_compiles(name: str) -> None:
    text = block(texts()[name])
    compile(text, f"sdk_{name}.py", "exec")
    text.encode("utf-8")  # no lone surrogate reaches the prompt


def test_every_text_passes_mypy_strict(mypy_report: tuple[str, int]) -> None:
    output, status = mypy_report
    assert status == 0, output


def test_byte_identical_whatever_the_input_order() -> None:
    expected = render_tools_sdk_python(CATALOG)
    shuffled = list(CATALOG)
    random.Random(3).shuffle(shuffled)
    assert render_tools_sdk_python(shuffled) == expected
    assert render_tools_sdk_python([frozen(tool) for tool in CATALOG]) == expected


def test_tools_in_code_point_order_and_properties_in_the_authors_order() -> None:
    tools: list[dict[str, Any]] = [
        {"name": "b", "description": None, "parameters": {"type": "object", "properties": {"z": {"type": "string"}, "a": {"type": "integer"}}}},
        {"name": "B", "description": None, "parameters": {}},
        {"name": "a", "description": None, "parameters": {}},
    ]
    text = block(render_tools_sdk_python(tools))
    assert text.index("async def B(") < text.index("async def a(") < text.index("async def b(")
    assert "async def b(self, *, z: str = ..., a: int = ...) -> str:" in text
    assert "class B2Args(TypedDict):\n    z: NotRequired[str]\n    a: NotRequired[int]" in text


def test_a_tool_with_non_identifier_properties_takes_one_positional_args() -> None:
    text = block(render_tools_sdk_python([{"name": "grep", "description": "Search.", "parameters": {
        "type": "object", "properties": {"-i": {"type": "boolean"}, "pattern": {"type": "string"}}, "required": ["pattern"]}}]))
    assert 'GrepArgs = TypedDict("GrepArgs", {"-i": NotRequired[bool], "pattern": str})' in text
    assert "async def grep(self, args: GrepArgs, /) -> str:" in text


def test_exotic_names_are_reached_through_getitem() -> None:
    text = block(render_tools_sdk_python(HOSTILE_NAMES))
    for name in ("class", "__init__", "str", "overload", "tools", "line\nbreak", ""):
        assert "async def " + name + "(" not in text
    assert 'def __getitem__(self, name: Literal["class"]) -> Callable[[ClassArgs], Awaitable[str]]:' in text
    assert 'Literal["line\\nbreak"]' in text
    assert "async def read_file(self) -> str:" in text and "ReadFile2Args" in text and "ReadFile3Args" in text


def test_typed_outputs_become_return_types() -> None:
    text = block(render_tools_sdk_python(CATALOG))
    assert "async def count_words(self, *, text: str) -> CountWordsResult:" in text
    assert "async def is_clean(self) -> bool:" in text
    assert "async def search_text(self, *, query: str) -> list[SearchText_Result_Item]:" in text
    assert "class SearchText_Result_Item(TypedDict):\n    path: str  # Relative to the workspace.\n" in text


def test_nested_objects_become_their_own_typed_dicts() -> None:
    text = block(render_tools_sdk_python(CATALOG))
    assert "class EditFile_Edits_Item(TypedDict):\n    oldText: str" in text
    assert "edits: list[EditFile_Edits_Item]" in text
    assert "filter: NotRequired[str | McpSearch_Filter]" in text
    nullable = block(render_tools_sdk_python(HOSTILE_NAMES))
    assert "async def typed_out(self) -> TypedOutResult | None:" in nullable


def test_descriptions_are_one_line_docstrings_that_cannot_escape() -> None:
    text = block(render_tools_sdk_python(HOSTILE_NAMES))
    assert '"""ends \\"\\"\\" a docstring \\\\"""' in text
    assert "\x00" not in text and "\u2028" not in text and "\r" not in text


@pytest.mark.parametrize("index", range(len(HOSTILE_SETS)))
def test_render_never_raises(index: int) -> None:
    text = render_tools_sdk_python(HOSTILE_SETS[index])
    assert "class Tools(Protocol):" in text and text.endswith("tools: Tools\n```")


def test_the_renderer_imports_no_runtime_code() -> None:
    for module in ("_python.py", "_pytypes.py"):
        source = (Path(__file__).parents[2] / "dsh_tools_codegen" / module).read_text(encoding="utf-8")
        assert "dsh_tools." not in source and "import dsh_tools" not in source and "open(" not in source


COMMENT_PARTS = ["word", " ", "  ", "\t", "\n", "\x00", "é", "\u2028", "\xa0", "\ud800", '"', "\\", "*/", "#", ""]


def test_the_comment_fast_paths_agree_with_the_rule() -> None:
    """``one_line`` (docstrings, comments) and ``read_properties``' fast path (``_plain_text``) give what ``_comment`` (the rule) gives."""
    rnd = random.Random(26)
    for _ in range(3_000):
        text = "".join(rnd.choice(COMMENT_PARTS) for _ in range(rnd.randint(0, 6)))
        rule = _comment(text)
        assert _note(text) == rule and one_line(text) == rule, repr(text)
        assert not _plain_text(text) or text == rule, repr(text)
        schema = {"type": "object", "properties": {"a": {"type": "string", "description": text}}}
        lines = read_properties(schema, Walk({}, {}, {}), "")[1]
        assert lines is not None and lines[0] == (f"    a: NotRequired[str]  # {rule}" if rule else "    a: NotRequired[str]"), repr(text)


def test_read_properties_reads_each_member_as_the_type_rule_does() -> None:
    """``read_properties``' inline paths (a plain scalar, an object with properties) give ``_type``'s text, budget and classes."""
    rnd = random.Random(31)
    for _ in range(1_000):
        members = {f"p_{index}": random_schema(rnd) for index in range(rnd.randint(1, 4))}
        properties = {key: schema for key, schema in members.items() if schema is not None}
        for depth, budget in ((0, 2_000), (MAX_DEPTH - 1, 5), (MAX_DEPTH, 5), (0, 2), (0, 0)):
            fast, rule = Walk({}, {}, {}), Walk({}, {}, {})
            fast.budget = rule.budget = budget
            fields, _ = read_properties({"type": "object", "properties": properties}, fast, "P", depth)
            expected = [_type(schema, depth + 1, rule, f"P_{rule.key(key)[0]}") for key, schema in properties.items()]
            assert [field[1] for field in fields] == expected, repr(properties)
            assert (fast.budget, fast.classes) == (rule.budget, rule.classes)


def test_the_array_fast_path_agrees_with_the_rule() -> None:
    """``_named_type``'s fast path for an array of a plain scalar gives ``_type``'s text and budget."""
    rnd = random.Random(27)
    for index in range(2_000):
        items = random_schema(rnd) if index % 2 else {"type": rnd.choice(["string", "integer", "array", 3]), "description": "d"}
        if items is None:
            continue  # no items: list[Any], a rule of its own
        for depth, budget in ((0, 2_000), (MAX_DEPTH - 1, 5), (MAX_DEPTH, 5), (0, 1), (0, 0)):
            fast, rule = Walk({}, {}, {}), Walk({}, {}, {})
            fast.budget = rule.budget = budget
            text = _named_type("array", {"type": "array", "items": items}, depth, fast, "P")
            assert text == f"list[{_type(items, depth + 1, rule, 'P_Item')}]", repr(items)
            assert (fast.budget, fast.classes) == (rule.budget, rule.classes)


NAME_PARTS = ["read", "file", "_", "__", "2", "x9", "Z", "A", "é", "-", " ", "\n", "\ud800", "ǅ", "ß", "ﬁ", "Ⅸ", ""]


def test_the_camel_case_fast_path_agrees_with_the_rule() -> None:
    """``camel`` (a lowercase ASCII identifier split on ``_``) gives what ``_camel_rule`` (the regex) gives."""
    rnd = random.Random(28)
    fast = 0
    for _ in range(5_000):
        parts = NAME_PARTS[:6] if rnd.random() < 0.5 else NAME_PARTS  # half of them snake_case-like
        name = "".join(rnd.choice(parts) for _ in range(rnd.randint(0, 6)))
        fast += name.isascii() and name.isidentifier() and name.islower()
        assert camel(name) == _camel_rule(name), repr(name)
    assert fast >= 1_000


TWIN_NAMES = ["read_file", "readFile", "read-file", "read_file2", "ReadFile2", "9lives", "", "class", "a", "A", "é"]


def test_stems_known_before_the_texts_agree_with_the_rule() -> None:
    """Names that do not repeat take stems before their texts are made (the fast path); a repeated one
    makes every text with ``\\x00`` for its stem, replaced after the sort (``_stems_after``, the rule).
    The same tool twice is rendered once, so adding a tool's twin must change nothing."""
    rnd = random.Random(29)
    for _ in range(300):
        tools: list[dict[str, Any]] = []
        for name in rnd.sample(TWIN_NAMES, rnd.randint(1, 6)):
            parameters = {"type": "object", "properties": {"o": random_schema(rnd), "p": {"type": "object", "properties": {"q": {}}}}}
            tools.append({"name": name, "description": rnd.choice([None, "d"]), "parameters": parameters})
            if rnd.random() < 0.3:
                tools[-1]["output_schema"] = rnd.choice([random_schema(rnd), {"type": "object", "properties": {"r": {}}}])
        assert render_tools_sdk_python(tools) == render_tools_sdk_python([*tools, tools[0]]), repr(tools)


@SOURCES_ONLY
def test_a_tool_whose_text_cannot_be_made_is_skipped_and_leaves_its_stem(monkeypatch: pytest.MonkeyPatch) -> None:
    real = python_sdk._docstring

    def failing(description: str | None) -> str:
        if description == "fails":
            raise MemoryError("no room for this description")
        return real(description)

    monkeypatch.setattr(python_sdk, "_docstring", failing)
    tools: list[dict[str, Any]] = [{"name": "read_file"}, {"name": "readFile", "description": "fails"}]
    for twins in (0, 2):  # no name repeats (stems known before the texts), a name repeats (the rule)
        text = block(render_tools_sdk_python([*tools, *[{"name": "zz"}] * twins]))
        assert "readFile" not in text and "async def read_file(self) -> str:" in text and "class ReadFileArgs(" in text
