"""Each contract in ``context/ports.py`` agrees with the class it stands for.

``ctx.tools`` and ``ctx.system_prompt`` are typed by Protocols so the context
need not import the registry; users' type checkers must still see every
member. Two checks keep a Protocol and its class in step: the same public
names with the same parameters (here, at run time), and the class assignable
to the Protocol (the functions below, under ``mypy --strict`` in ``make test``).
"""

from __future__ import annotations

import inspect

import pytest

from dsh_tools import ToolRegistry, boot
from dsh_tools.code_mode.plugin import CodeMode
from dsh_tools.code_mode.search.index import CatalogIndex
from dsh_tools.context.ports import CatalogIndexPort, CodeModePort, SystemPromptPort, ToolsPort
from dsh_tools.system_prompt.service import SystemPrompt

PAIRS = [
    (ToolRegistry, ToolsPort),
    (CodeMode, CodeModePort),
    (CatalogIndex, CatalogIndexPort),
    (SystemPrompt, SystemPromptPort),
]


def _registry_is_a_tools_port(registry: ToolRegistry) -> ToolsPort:
    return registry


def _code_mode_is_a_port(code_mode: CodeMode) -> CodeModePort:
    return code_mode


def _index_is_a_port(index: CatalogIndex) -> CatalogIndexPort:
    return index


def _prompt_is_a_port(prompt: SystemPrompt) -> SystemPromptPort:
    return prompt


def _public(cls: type) -> set[str]:
    """Public names a class offers: its own and inherited members and annotated attributes, and its slots."""
    names: set[str] = set()
    for klass in cls.__mro__:
        if klass is object or klass.__name__ in ("Protocol", "Generic"):
            continue
        names |= set(vars(klass)) | set(getattr(klass, "__annotations__", {}))
        slots = vars(klass).get("__slots__", ())
        names |= {slots} if isinstance(slots, str) else set(slots)
    return {name for name in names if not name.startswith("_")}


@pytest.mark.parametrize(("cls", "port"), PAIRS, ids=lambda value: value.__name__)
def test_a_port_names_exactly_its_class_public_members(cls: type, port: type) -> None:
    assert _public(port) == _public(cls)


@pytest.mark.parametrize(("cls", "port"), PAIRS, ids=lambda value: value.__name__)
def test_a_ports_methods_take_the_parameters_of_the_class(cls: type, port: type) -> None:
    for name in sorted(_public(port)):
        member, declared = inspect.getattr_static(cls, name, None), inspect.getattr_static(port, name, None)
        if not callable(member) or not callable(declared) or isinstance(member, type):
            continue  # attributes and properties: the type checker compares them (the functions above)
        ours = [(p.name, p.kind, p.default is inspect.Parameter.empty) for p in inspect.signature(member).parameters.values()]
        theirs = [(p.name, p.kind, p.default is inspect.Parameter.empty) for p in inspect.signature(declared).parameters.values()]
        assert theirs == ours, name


def test_the_context_hands_out_the_classes_behind_the_ports() -> None:
    ctx = boot()
    assert isinstance(ctx.tools, ToolRegistry) and isinstance(ctx.system_prompt, SystemPrompt)
