"""Loading tools from user modules: the one loader every command uses.

A command names its tools as ``MODULE[:ATTR]`` specs. ``MODULE`` is a dotted
import path, found as ``python -m`` finds it (the current directory first,
then ``PYTHONPATH`` and the installed packages), or a file path (``.py``; a
path without the suffix finds ``NAME.py`` or the package ``NAME/``), relative
to the current directory. Without ``ATTR`` a module offers its tools as

1. a ``register(ctx: Context) -> None`` function, called by every command
   when the module defines one: the module's own installation, which
   registers its tools *and* the policies they need (listeners, guards), so
   that serving or running them keeps that policy (nothing else of the
   module is read then);
2. a ``TOOLS`` list (or tuple), or
3. module-level tool objects (anything shaped like a ``ToolDefinition``:
   ``name``, ``description``, ``parameters``, ``execute``);

``ATTR`` selects one attribute: a list, a single tool, a ``register(ctx)``
function or a zero-argument factory returning a list. A tool *body* (an
``async def`` or a two-argument ``(args, exec)`` function) is not a tool: the
message shows how to wrap it with ``define_tool``.

Every source is registered into a freshly booted context of its own, so each
schema is validated by the real registry exactly as in production, and a
failure is attributed to the module that caused it. A tool name defined by
two modules is refused with both names. Commands that execute tools then
install the same sources into their own context (:meth:`LoadedTools.install`).

Every user-facing failure is a :class:`CliError`; the CLI prints its message
(which always names the culprit) and exits 2, with no traceback.
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import os
import sys
import zlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import TypeGuard

from dsh_tools.cli.errors import CliError
from dsh_tools.errors import safe_str
from dsh_tools.boot import boot
from dsh_tools.context.context import Context
from dsh_tools.tool_types import RegisteredTool, ToolDefinition, ToolSchema

__all__ = [
    "CliError",
    "LoadedTools",
    "ToolSource",
    "import_module_spec",
    "is_tool",
    "load_tools",
    "parse_spec",
    "split_specs",
]

NO_TOOLS_HINT = "expected a TOOLS list, a register(ctx) function, or module-level define_tool objects"


Register = Callable[[Context], object]


@dataclass(frozen=True)
class ToolSource:
    """Where a spec's tools come from: a fixed list of definitions, or a ``register(ctx)``.

    Only a ``register(ctx)`` can install policy next to the tools
    (``has_policy_hook``); ``mcp-serve`` warns about sources without one.
    """

    label: str
    definitions: tuple[ToolDefinition, ...] = ()
    register: Register | None = None

    @property
    def has_policy_hook(self) -> bool:
        return self.register is not None

    def install(self, ctx: Context) -> None:
        """Register this source's tools through ``ctx``; ``CliError`` naming the source if it fails."""
        try:
            if self.register is not None:
                outcome = self.register(ctx)
                if inspect.isawaitable(outcome):
                    if inspect.iscoroutine(outcome):
                        outcome.close()
                    raise CliError(f"{self.label}: register(ctx) must be synchronous, it returned an awaitable")
            else:
                for definition in self.definitions:
                    ctx.tools.register(definition)
        except CliError:
            raise
        except Exception as error:  # noqa: BLE001 - any failure of user code is reported, not raised
            raise CliError(f"{self.label}: cannot register its tools: {_describe_error(error)}") from None


@dataclass(frozen=True)
class LoadedTools:
    """The validated tools of every spec, in spec then registration order."""

    sources: tuple[ToolSource, ...]
    tools: tuple[RegisteredTool, ...]
    origin: Mapping[str, str]
    """Tool name → the label of the spec that defined it."""

    def schemas(self) -> list[ToolSchema]:
        return [tool.schema for tool in self.tools]

    def install(self, ctx: Context) -> None:
        """Register every source into ``ctx`` (for commands that execute the tools)."""
        for source in self.sources:
            source.install(ctx)


def load_tools(specs: Sequence[str], *, require: bool = True) -> LoadedTools:
    """Import every spec, validate its tools in the real registry, refuse duplicates."""
    if require and not specs:
        raise CliError("no tool modules given")
    sources: list[ToolSource] = []
    tools: list[RegisteredTool] = []
    origin: dict[str, str] = {}
    for spec in specs:
        source = resolve_source(spec)
        probe = boot(timeouts=False)
        source.install(probe)
        found = probe.tools.visible()
        if not found:
            raise CliError(f"{spec}: defines no tools ({NO_TOOLS_HINT})")
        for tool in found:
            if tool.name in origin:
                raise CliError(f'duplicate tool name "{tool.name}": defined by {origin[tool.name]} and by {spec}')
            origin[tool.name] = spec
        sources.append(source)
        tools.extend(found)
    return LoadedTools(tuple(sources), tuple(tools), origin)


def split_specs(values: Sequence[str]) -> list[str]:
    """Each value, split at commas (``--tools a,b`` is ``--tools a --tools b``).

    A value naming an existing file is kept whole, so a path with a comma in it
    still loads; empty pieces (``a,,b``, a trailing comma) are dropped.
    """
    specs: list[str] = []
    for value in values:
        if "," in value and not Path(parse_spec(value)[0]).exists():
            specs.extend(piece.strip() for piece in value.split(",") if piece.strip())
        else:
            specs.append(value)
    return specs


def parse_spec(spec: str) -> tuple[str, str | None]:
    """``"pkg.mod:ATTR"`` → ``("pkg.mod", "ATTR")``; no (identifier) suffix → ``(spec, None)``."""
    module, sep, attr = spec.rpartition(":")
    if sep and module and attr.isidentifier():
        return module, attr
    return spec, None


def resolve_source(spec: str) -> ToolSource:
    """The :class:`ToolSource` a ``MODULE[:ATTR]`` spec names."""
    module_name, attr = parse_spec(spec)
    module = import_module_spec(module_name)
    if attr is not None:
        if not hasattr(module, attr):
            raise CliError(f"{spec}: module {module_name!r} has no attribute {attr!r}")
        return _from_value(spec, getattr(module, attr))
    register = getattr(module, "register", None)
    if callable(register) and not is_tool(register):
        return ToolSource(spec, register=register)
    if hasattr(module, "TOOLS"):
        return _from_value(spec, module.TOOLS)
    found: dict[int, ToolDefinition] = {}
    for value in list(vars(module).values()):
        if is_tool(value):
            found.setdefault(id(value), value)
    if not found:
        raise CliError(f"{spec}: defines no tools ({NO_TOOLS_HINT})")
    return ToolSource(spec, tuple(found.values()))


def _from_value(label: str, value: object) -> ToolSource:
    """A source from one attribute: a tool, a list of tools, ``register(ctx)`` or a factory."""
    if is_tool(value):
        return ToolSource(label, (value,))
    if isinstance(value, (list, tuple)):
        return ToolSource(label, _tool_list(label, value))
    if callable(value):
        if inspect.iscoroutinefunction(value):
            raise CliError(_tool_body_message(label, value))
        required = _required_parameters(label, value)
        if required == 1:
            return ToolSource(label, register=value)
        if required == 0:
            try:
                produced = value()
            except Exception as error:  # noqa: BLE001 - user code
                raise CliError(f"{label}: the factory raised {_describe_error(error)}") from None
            if is_tool(produced):
                return ToolSource(label, (produced,))
            if isinstance(produced, (list, tuple)):
                return ToolSource(label, _tool_list(label, produced))
            raise CliError(f"{label}: the factory returned a {type(produced).__name__}, not a list of tools")
        if required == 2:
            raise CliError(_tool_body_message(label, value))
        raise CliError(f"{label}: a callable must take no arguments (a factory) or one (register(ctx))")
    raise CliError(f"{label}: a {type(value).__name__} is not a tool, a list of tools, or a register function")


def _tool_body_message(label: str, fn: Callable[..., object]) -> str:
    """The tool-body mistake, and the two lines that fix it."""
    name = getattr(fn, "__name__", "fn")
    name = name if isinstance(name, str) and name.isidentifier() else "fn"
    module = label.rpartition(":")[0]
    return (
        f"{label}: {name} looks like a tool body (args, exec), not a tool; wrap it in a definition and name that:\n"
        f"    TOOL = define_tool(name={name!r}, description=\"...\", parameters={{...}}, execute={name})\n"
        f"  then load {module}:TOOL (or the module itself, which finds module-level tools)"
    )


def _tool_list(label: str, values: Sequence[object]) -> tuple[ToolDefinition, ...]:
    if not values:
        raise CliError(f"{label}: defines no tools (the list is empty)")
    tools: list[ToolDefinition] = []
    for index, value in enumerate(values):
        if not is_tool(value):
            raise CliError(f"{label}[{index}]: a {type(value).__name__} is not a tool definition")
        tools.append(value)
    return tuple(tools)


def _required_parameters(label: str, fn: Callable[..., object]) -> int:
    try:
        parameters = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        raise CliError(f"{label}: cannot inspect the callable's signature") from None
    positional = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    return sum(1 for p in parameters if p.kind in positional and p.default is inspect.Parameter.empty)


def is_tool(value: object) -> TypeGuard[ToolDefinition]:
    """Does ``value`` have the ``ToolDefinition`` shape? (Total: hostile attributes are "no".)"""
    if isinstance(value, type) or isinstance(value, ModuleType):
        return False
    try:
        return (
            isinstance(getattr(value, "name", None), str)
            and isinstance(getattr(value, "description", None), str)
            and isinstance(getattr(value, "parameters", None), Mapping)
            and callable(getattr(value, "execute", None))
        )
    except Exception:  # noqa: BLE001 - a property that raises is not a tool
        return False


def import_module_spec(module: str) -> ModuleType:
    """Import a dotted module path (as ``python -m`` finds it) or a file path."""
    if module.endswith(".py") or "/" in module or os.sep in module:
        return _import_file(_module_file(Path(module)))
    cwd = os.getcwd()
    if cwd not in sys.path:
        sys.path.insert(0, cwd)  # as `python -m` does: the user's own modules are importable
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as error:
        missing = error.name or ""
        if missing and (module == missing or module.startswith(missing + ".")):
            raise CliError(_not_found_message(module, missing, cwd)) from None
        raise CliError(f"module {module!r} failed to import: {_describe_error(error)}") from None
    except Exception as error:  # noqa: BLE001 - the module's own code raised
        raise CliError(f"module {module!r} failed to import: {_describe_error(error)}") from None


def _not_found_message(module: str, missing: str, cwd: str) -> str:
    """What was tried for a dotted name, and the spelling that loads a file instead."""
    message = (
        f"cannot import {module!r}: no module named {missing!r} in the current directory ({cwd}), "
        "on PYTHONPATH or among the installed packages (looked up as `python -m` does)"
    )
    as_file = Path(*module.split(".")).with_suffix(".py")
    hint = f"; to load a file from elsewhere, give its path (path/to/{as_file.name})"
    return message + hint


def _module_file(path: Path) -> Path:
    """The file a path names: itself, ``NAME.py`` for a suffix-less ``NAME``, or a package's ``__init__.py``."""
    if path.is_file():
        return path
    tried = [path]
    if path.suffix != ".py":
        for candidate in (path.with_name(path.name + ".py"), path / "__init__.py"):
            if candidate.is_file():
                return candidate
            tried.append(candidate)
    where = "" if path.is_absolute() else f" (relative to the current directory, {os.getcwd()})"
    names = ", ".join(str(candidate) for candidate in tried)
    raise CliError(f"file not found: {names}{where}")


def _import_file(path: Path) -> ModuleType:
    resolved = path.resolve()
    package = _package_module_name(resolved)
    if package is not None:
        # A file inside a package imports as that package's module, as pytest
        # does, so its own absolute imports (``from mypkg.helpers import ...``)
        # work wherever the command runs from.
        dotted, root = package
        if root not in sys.path:
            sys.path.insert(0, root)
        try:
            return importlib.import_module(dotted)
        except Exception as error:  # noqa: BLE001 - the module's own code raised
            raise CliError(f"{path} failed to import: {_describe_error(error)}") from None
    # A stable, unique name: registered in sys.modules so TypedDict annotations resolve.
    name = f"_dsh_tools_cli_{resolved.stem}_{zlib.crc32(str(resolved).encode()):08x}"
    loaded = sys.modules.get(name)
    if loaded is not None:
        return loaded
    spec = importlib.util.spec_from_file_location(name, resolved)
    if spec is None or spec.loader is None:
        raise CliError(f"{path}: not a loadable Python file")
    module = importlib.util.module_from_spec(spec)
    parent = str(resolved.parent)
    if parent not in sys.path:
        sys.path.insert(0, parent)  # as `python file.py` does: sibling modules import
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except Exception as error:  # noqa: BLE001 - the module's own code raised
        del sys.modules[name]
        raise CliError(f"{path} failed to import: {_describe_error(error)}") from None
    return module


def _package_module_name(path: Path) -> tuple[str, str] | None:
    """``("pkg.sub.mod", root)`` for a file inside packages (``__init__.py`` all the way up), else ``None``.

    ``root`` is the directory the top package sits in; a package's own
    ``__init__.py`` names the package itself.
    """
    is_init = path.name == "__init__.py"
    parts = [] if is_init else [path.stem]
    folder = path.parent
    while (folder / "__init__.py").is_file() and folder.name.isidentifier():
        parts.append(folder.name)
        folder = folder.parent
    if not parts or not parts[0].isidentifier() or (len(parts) == 1 and not is_init):
        return None
    return ".".join(reversed(parts)), str(folder)


def _describe_error(error: BaseException) -> str:
    text = safe_str(error)
    return f"{type(error).__name__}: {text}" if text else type(error).__name__
