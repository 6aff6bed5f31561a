"""The package's floors: the lower ones never import the higher packages, and the one import cycle left stays the type vocabulary.

Every import counts, as a type checker and a lazy import need them too:
module level, under ``TYPE_CHECKING`` and inside functions.

The lower floors are the records and the context (issue 33's list), and the
modules that hold what ``ctx.tools``'s contract names (``context/ports.py``).
None of them may import ``registry``, ``pipeline``, ``code_mode``, ``store``,
``inspector``, ``adapters``, ``mcp`` or ``cli``.

One cycle of more than two modules is left, and it is a type cycle, not a
code one: a ``ToolExecution`` names its ``Agent``, whose ``ctx`` is a
``Context``, whose ``tools`` is a ``ToolsPort``, whose members name
``ToolExecution``, ``RegisteredTool``, the store's records, and so on. Only a
looser public type would cut it (``docs/pipeline.md``, "Floors"). The ratchet below
fails if any other module joins it.
"""

from __future__ import annotations

import ast
import pathlib

PACKAGE = pathlib.Path(__file__).resolve().parents[2] / "dsh_tools"

LOWER = (
    "record", "json_values", "json_walk", "errors", "signals", "content", "execution", "approval", "decisions",
    "tool_types", "hooks", "context",
    # what ctx.tools's contract names, kept below the context:
    "call_records", "call_store", "orphans", "seams", "code_seam", "tool_layers",
)
HIGHER = ("registry", "pipeline", "code_mode", "store", "inspector", "adapters", "mcp", "cli")

TYPE_VOCABULARY = {
    "approval", "call_records", "call_store", "context.context", "context.events", "context.ports", "context.probes",
    "dbos.seam", "execution", "hooks", "retry", "seams", "system_prompt.records", "tool_layers", "tool_types",
}
"""The modules of the one cycle left: the public types that name each other (see the module docstring)."""


def _modules() -> dict[str, pathlib.Path]:
    found = {}
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(PACKAGE).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        found[name] = path
    return found


def _imports(modules: dict[str, pathlib.Path]) -> dict[str, set[str]]:
    """Each module's imports of the package's modules (``name`` relative to ``dsh_tools``; ``""`` is the package)."""

    def resolve(name: str) -> str | None:
        while name and name not in modules:
            name = name.rpartition(".")[0]
        return name or None

    edges: dict[str, set[str]] = {}
    for name, path in modules.items():
        here = name if path.name == "__init__.py" else name.rpartition(".")[0]
        targets: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                wanted = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    parts = ["dsh_tools", *here.split(".")] if here else ["dsh_tools"]
                    base = ".".join(parts[: len(parts) - node.level + 1] + ([base] if base else []))
                wanted = [base] + [f"{base}.{alias.name}" for alias in node.names]
            else:
                continue
            for target in wanted:
                if target.startswith("dsh_tools."):
                    found = resolve(target.removeprefix("dsh_tools."))
                    if found is not None and found != name:
                        targets.add(found)
        edges[name] = targets
    return edges


def _is_in(name: str, floors: tuple[str, ...]) -> bool:
    return any(name == floor or name.startswith(floor + ".") for floor in floors)


def _cycles(edges: dict[str, set[str]]) -> list[set[str]]:
    """Strongly connected components of more than two modules (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[set[str]] = []
    for root in sorted(edges):
        if root in index:
            continue
        work = [(root, iter(sorted(edges[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = set()
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.add(member)
                    if member == node:
                        break
                if len(component) > 2:
                    found.append(component)
    return found


def test_the_lower_floors_import_no_higher_package() -> None:
    edges = _imports(_modules())
    upward = sorted(
        f"{module} -> {target}"
        for module, targets in edges.items() if _is_in(module, LOWER)
        for target in targets if _is_in(target, HIGHER)
    )
    assert upward == []


def test_the_only_cycle_left_is_the_type_vocabulary() -> None:
    cycles = _cycles(_imports(_modules()))
    assert len(cycles) <= 1
    assert all(cycle <= TYPE_VOCABULARY for cycle in cycles), sorted(set().union(*cycles) - TYPE_VOCABULARY)


def test_the_check_sees_an_upward_import_and_a_cycle() -> None:
    edges = {"execution": {"pipeline.plan"}, "pipeline.plan": {"registry"}, "registry": {"execution"}}
    assert _cycles(edges) == [{"execution", "pipeline.plan", "registry"}]
    assert _is_in("context.ports", LOWER) and _is_in("pipeline.plan", HIGHER) and not _is_in("contextual", LOWER)


COMPATIBILITY = {"pipeline.host", "pipeline.orphans", "store.records"}
"""Modules kept only so that outside code importing the old paths still works: each re-exports names another module keeps."""


def test_the_package_imports_each_name_from_where_it_lives() -> None:
    """Inside the package nothing goes through a compatibility module (nor through ``store.protocol`` for the
    names it only re-exports): a reader who follows an import lands on the definition."""
    modules = _modules()
    reexported = {
        alias.name
        for node in ast.parse(modules["store.protocol"].read_text(encoding="utf-8")).body
        if isinstance(node, ast.ImportFrom)
        for alias in node.names if alias.asname == alias.name
    }
    detours = sorted(
        f"{name}: {node.module} {alias.name}"
        for name, path in modules.items() if name not in COMPATIBILITY and name != "store.protocol"
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.ImportFrom) and node.level == 0
        for alias in node.names
        if node.module in {f"dsh_tools.{module}" for module in COMPATIBILITY}
        or (node.module == "dsh_tools.store.protocol" and alias.name in reexported)
    )
    assert detours == []
    assert "CallStore" in reexported  # the check reads the re-exports it forbids
