"""The glue gate: the two-process program in docs/durability.md needs at most 15 lines of library glue, as the page says.

Counted by the page's own rule: every code line of the ``durable-chat`` block
that is not an import, the tool's body (its decorator counts), a print, the
scripted model (``scripted_model`` and the ``model`` client made from it) or
the driver that stands in for a terminal (the ``elif __name__ ==
"__main__"`` branch). The number the page states must be the number counted.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

from pytest_examples import find_examples

PAGE = Path(__file__).resolve().parents[2] / "docs" / "durability.md"
STATED = re.compile(r"\*\*The glue: (\d+) lines\.\*\*")
SCRIPTED_MODEL = {"scripted_model", "model"}


def block() -> str:
    (example,) = [e for e in find_examples(PAGE) if e.prefix_settings().get("name") == "durable-chat"]
    return example.source


def _is_print(statement: ast.stmt) -> bool:
    call = statement.value if isinstance(statement, ast.Expr) else None
    return isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id == "print"


def _is_docstring(statement: ast.stmt) -> bool:
    return isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant) and isinstance(statement.value.value, str)


def _is_tool(node: ast.stmt) -> bool:
    return isinstance(node, ast.AsyncFunctionDef | ast.FunctionDef) and any(
        "tool" in ast.unparse(decorator) for decorator in node.decorator_list
    )


def counted_lines(source: str) -> list[int]:
    """The line numbers the rule counts, in order."""
    lines: set[int] = set()

    def span(node: ast.AST) -> range:
        return range(node.lineno, (node.end_lineno or node.lineno) + 1)  # type: ignore[attr-defined]

    def visit(body: list[ast.stmt], top: bool) -> None:
        for node in body:
            if isinstance(node, ast.Import | ast.ImportFrom) or _is_print(node) or _is_docstring(node):
                continue
            if top and isinstance(node, ast.FunctionDef | ast.Assign):
                names = {node.name} if isinstance(node, ast.FunctionDef) else {ast.unparse(t) for t in node.targets}
                if names & SCRIPTED_MODEL:
                    continue
            if top and _is_tool(node):
                for decorator in node.decorator_list:  # type: ignore[attr-defined]
                    lines.update(span(decorator))
                continue
            if isinstance(node, ast.AsyncFunctionDef | ast.FunctionDef | ast.If | ast.While | ast.For | ast.With):
                for decorator in getattr(node, "decorator_list", ()):
                    lines.update(span(decorator))
                lines.update(range(node.lineno, node.body[0].lineno))  # the header, however many lines
                visit(node.body, False)
                if isinstance(node, ast.If) and not top:
                    visit(node.orelse, False)  # a top-level if's else is the driver: the terminal's part
                continue
            lines.update(span(node))

    visit(ast.parse(source).body, True)
    text = source.splitlines()
    return sorted(n for n in lines if text[n - 1].strip() and not text[n - 1].strip().startswith("#"))


def test_the_page_states_the_glue_it_needs_and_it_is_at_most_15_lines() -> None:
    source = block()
    counted = counted_lines(source)
    stated = STATED.search(PAGE.read_text(encoding="utf-8"))
    assert stated is not None, "durability.md states the glue count as **The glue: N lines.**"
    shown = "\n".join(source.splitlines()[n - 1] for n in counted)
    assert len(counted) == int(stated.group(1)), f"the page says {stated.group(1)}, the block has {len(counted)}:\n{shown}"
    assert len(counted) <= 15, shown


def test_the_count_follows_the_rule() -> None:
    counted = counted_lines(
        "import os\n\n"
        "def scripted_model(r):\n    return r\n\n"
        "model = make(scripted_model)\n\n"
        "@tool(needs_approval=True)\nasync def t(x: str) -> str:\n    '''Doc.'''\n    return x\n\n"
        "async def main():\n    a = 1\n    print(a)\n    # a comment\n\n"
        "if __name__ == '__main__' and x:\n    run()\nelif __name__ == '__main__':\n    print(1)\n    driver()\n"
    )
    assert counted == [8, 13, 14, 18, 19]  # the decorator, main's def and body line, the entry if and its run
