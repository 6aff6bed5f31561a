"""dsh-tools: a tool registry and policy pipeline for agent harnesses.

Register tools (typed with :func:`define_tool`), shape policy with listeners and
guards, and run every model tool call through one pipeline::

    tools/pre-execute → approval → guards → tools/execute → tools/post-execute → tools/result

Records are immutable pyrsistent values, policy decisions are values, and every
misbehaviour becomes an ``is_error`` result rather than an exception. Code Mode
presents the tools as a TypeScript SDK and runs the model's programs in a
sandboxed Deno process, each sub-call re-entering the full pipeline.

Start with :func:`boot`; the pipeline's stages live in :mod:`dsh_tools.pipeline`.

Every name here loads on first use (PEP 562): ``import dsh_tools`` costs
almost nothing, and a command or program pays only for what it touches (the
Deno plumbing, the CLI and the demo are never loaded by native-mode code).

The export list is ``__init__.pyi`` beside this file: type checkers read it as
the package's stub, and :func:`__getattr__` reads the same ``from ... import
Name as Name`` lines to learn where each name lives (as scientific Python's
``lazy_loader`` does with its stubs), so an export is added in one place.
"""

import sys
from types import ModuleType

_exports: dict[str, str] | None = None  # name -> the module defining it, read from the stub on first need


def _export_table() -> dict[str, str]:
    """The stub's ``from module import Name as Name`` lines as ``{Name: module}`` (read once).

    A plain split of our own stub's one shape of statement, not ``ast``:
    importing ``ast`` alone would cost more than all of ``import dsh_tools``.
    ``tests/foundation/test_exports.py`` checks the split against ``ast``.
    """
    global _exports
    if _exports is None:
        import os

        stub = os.path.join(os.path.dirname(__file__), "__init__.pyi")
        text = __spec__.loader.get_data(stub).decode()  # get_data: a wheel, a zip or a plain directory
        _exports = {}
        for statement in text.split("\nfrom ")[1:]:
            module, _, names = statement.partition(" import ")
            for item in names.replace("(", ",").replace(")", ",").split(","):
                name = item.split(" as ")[0].strip()
                if name:
                    _exports[name] = module.strip()
    return _exports


def __getattr__(name: str) -> object:
    table = _export_table()
    if name == "__all__":
        value: object = list(table)
    else:
        module = table.get(name)
        if module is None:
            raise AttributeError(f"module 'dsh_tools' has no attribute {name!r}")
        import importlib

        value = getattr(importlib.import_module(module), name)
    globals()[name] = value  # later lookups are plain attribute reads
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_export_table()})


class _Package(ModuleType):
    """The package module, kept from letting a submodule shadow the export it defines.

    Importing a submodule sets it as an attribute of its package, so once
    anything imports ``dsh_tools.boot`` the package's ``boot`` would be
    that module rather than the ``boot()`` function. An eager
    ``__init__`` rebinds the name right after; a lazy one refuses the
    module here and lets ``__getattr__`` answer with the function.
    """

    def __setattr__(self, name: str, value: object) -> None:
        if isinstance(value, ModuleType) and _export_table().get(name) == value.__name__:
            return
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package
