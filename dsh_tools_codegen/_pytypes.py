"""JSON Schema as Python types, for the Python SDK text (:mod:`._python`).

Each tool's schemas are read once, under a node budget and the shared depth
limit, into type texts that ``mypy --strict`` accepts: scalars, ``list[...]``,
``dict[str, ...]``, ``Literal[...]`` unions, and a ``TypedDict`` of its own
for every object with properties (named after its path, see :class:`Walk`).
Whatever cannot be expressed or read becomes ``Any``: the reading is total.
Exact JSON containers are read directly on a fast path; anything else goes
through the readers of :mod:`._read`, shared with the TypeScript
renderer, so both renderers see the same properties in the same order.
"""

from __future__ import annotations

import keyword
import re
from json.encoder import encode_basestring_ascii as _encode_ascii  # = json.dumps(s)
from collections.abc import Collection
from typing import Final

from ._read import MAX_DEPTH, MAX_ITEMS
from ._read import entries as _entries
from ._read import exact_strs as _exact_strs
from ._read import is_sequence as _is_sequence
from ._read import no_keywords as _no_keywords
from ._read import required_names as _required
from ._read import take as _take
from ._read import view as _view
from ._text import exact_str

__all__ = [
    "ANY", "Shared", "Walk", "camel", "is_method_name", "literal", "one_line", "read_properties",
    "read_returns", "typed_dict",
]

_KEYWORDS: Final = frozenset(keyword.kwlist)
_WORDS: Final = re.compile(r"[A-Za-z0-9]+")
_SCALARS: Final = {"string": "str", "integer": "int", "number": "float", "boolean": "bool", "null": "None"}
ANY: Final = "Any"
_LISTS: Final = {name: f"list[{text}]" for name, text in _SCALARS.items()}
"""An array of a plain scalar's type, made once."""
_ENCODE: Final = _encode_ascii
"""json.dumps(s): a final name, which compiled code holds in a C static (no module dict lookup per call)."""
_RESERVED: Final = frozenset(
    {"Any", "Awaitable", "Callable", "Literal", "NotRequired", "Protocol", "TypedDict", "overload"}
    | {"ToolError", "Tools", "tools", "self", "str", "int", "float", "bool", "list", "dict"}
)
"""Names the text itself uses: a tool or class-syntax key named so would shadow them."""
_NONE_REQUIRED: Final[frozenset[str]] = frozenset()
_MAX_NODES: Final = 2_000
"""Schema nodes read per tool (arguments and output) before the rest degrade to ``Any``."""

def is_method_name(name: str) -> bool:
    """A name that can be a method or a class-syntax key: a plain ASCII identifier,
    no keyword, not mangled (``__x``), shadowing no name the text uses."""
    return (
        name.isascii()
        and name.isidentifier()
        and name not in _KEYWORDS
        and not name.startswith("__")
        and name not in _RESERVED
        and not name.endswith(("Args", "Result"))
    )


Fields = list[tuple[str, str, bool]]
"""Of an object's properties: ``(key, type text, required)`` each (:func:`read_properties`)."""


def typed_dict(class_name: str, fields: Fields, lines: list[str] | None) -> str:
    """A ``TypedDict``: class syntax when every key is an identifier (``lines``, one per field, made as the
    fields were read), the functional form otherwise."""
    if lines is not None:
        body = "\n".join(lines) if lines else "    pass"
        return f"\n\nclass {class_name}(TypedDict):\n{body}"
    items = ", ".join([f"{literal(key)}: {text if required else f'NotRequired[{text}]'}" for key, text, required in fields])
    return f'\n\n{class_name} = TypedDict("{class_name}", {{{items}}})'


Shared = tuple[dict[str, tuple[str, str, str]], dict[tuple[str, ...], str], dict[tuple[str, ...], str]]
"""One render's memos, shared by its tools' walks (:class:`Walk`'s ``keys``, ``unions`` and ``enums``)."""


class Walk:
    """One tool's reading state: the node budget, and the nested ``TypedDict`` classes made so far.

    A nested object with properties becomes a class named ``<Stem>_<Path>``
    (``EditFile_Edits_Item``): stems have no ``_``, so the part before the
    first ``_`` is unique to the tool, and a path is made unique within it.
    """

    __slots__ = ("budget", "classes", "taken", "keys", "unions", "enums", "stem")

    def __init__(
        self,
        keys: dict[str, tuple[str, str, str]],
        unions: dict[tuple[str, ...], str],
        enums: dict[tuple[str, ...], str],
        stem: str = "\x00",
    ) -> None:
        self.stem = stem  # the tool's class-name stem, or "\x00" standing for it until it is known
        self.budget = _MAX_NODES
        self.classes: list[str] = []
        self.taken: set[str] = set()
        # shared by one render: catalogs repeat their property names, type lists and enums
        self.keys, self.unions, self.enums = keys, unions, enums

    def key(self, key: str) -> tuple[str, str, str]:
        """``(CamelCase path part, required head, optional head)`` of a property name: how its class-syntax
        line starts (``"    key: "``, ``"    key: NotRequired["``), both ``""`` when it is not an identifier."""
        known = self.keys.get(key)
        if known is None:
            if is_method_name(key):
                known = (camel(key) or "Field", f"    {key}: ", f"    {key}: NotRequired[")
            else:
                known = (camel(key) or "Field", "", "")
            self.keys[key] = known
        return known

    def name(self, path: str) -> str:
        base = f"{self.stem}_{path or 'Object'}"
        name, count = base, 1
        while name in self.taken:
            count += 1
            name = f"{base}{count}"
        self.taken.add(name)
        return name


def camel(name: str) -> str:
    """``name``'s ASCII letter-and-digit runs, each capitalised and joined (``read_file`` → ``ReadFile``).

    Fast path of :func:`_camel_rule` (test_codegen_python checks they agree): a lowercase ASCII
    identifier (most tool and property names) is split on ``_``, no regular expression."""
    if name.isascii() and name.isidentifier() and name.islower():
        return "".join([word.capitalize() for word in name.split("_")])
    return _camel_rule(name)


def _camel_rule(name: str) -> str:
    return "".join([word[:1].upper() + word[1:] for word in _WORDS.findall(name)])


def read_properties(parameters: object, walk: Walk, path: str, depth: int = 0) -> tuple[Fields, list[str] | None]:
    """``(key, type, required)`` per property, in the author's order (none if unreadable), and, when every
    key is an identifier (known as they are read), the class-syntax line of each, with its comment."""
    try:
        view = parameters if type(parameters) is dict else _view(parameters)
        if view is None:
            return [], []
        properties, named = view.get("properties"), view.get("required")
        # exact JSON containers are read as they are; anything else through the shared defensive readers
        entries: list[tuple[str, object]] | None = None
        if type(properties) is dict and len(properties) <= MAX_ITEMS:
            entries = list(properties.items()) if _exact_strs(properties) else None
        if entries is None:
            entries = _entries(properties) or []
        required: Collection[str] | None = None
        if type(named) is list and _exact_strs(named):
            # a few names are searched as they are (no user code: exact str), more through a set
            required = named if len(named) <= 8 else frozenset(named)
        if required is None:
            required = _NONE_REQUIRED if named is None else _required(named)
    except Exception:
        return [], []
    fields: Fields = []
    lines: list[str] | None = []
    keys = walk.keys
    depth += 1
    deep = depth > MAX_DEPTH
    budget = walk.budget  # kept here, handed to walk around the calls that read deeper
    for key, sub in entries:
        description = None
        try:
            sub_view = sub if type(sub) is dict else _view(sub)
            description = None if sub_view is None else sub_view.get("description")
            if description is None:
                doc = ""
            elif type(description) is str and _plain_text(description):
                doc = description  # one_line's fast path, without its call
            else:
                doc = _note(description)
        except Exception:
            sub_view, doc = None, ""
        known = keys.get(key)
        if known is None:
            known = walk.key(key)
        if sub_view is not None and budget > 0 and not deep:  # _type's work, without the second look
            budget -= 1
            kind = sub_view.get("type")
            scalar = _SCALARS.get(kind) if type(kind) is str else None
            # plain when "type" (and "description") are all there is, else when no schema keyword is
            plain_view = len(sub_view) == (1 if description is None else 2) or _no_keywords(sub_view)
            if scalar is not None and plain_view:
                text = scalar  # what _type_view gives a plain scalar, without the calls (nor a path)
            else:
                walk.budget = budget
                try:
                    sub_path = f"{path}_{known[0]}" if path else known[0]
                    if type(kind) is str and plain_view:
                        text = _named_type(kind, sub_view, depth, walk, sub_path)  # _type_view's text, a call less
                    else:
                        text = _type_view(sub_view, depth, walk, sub_path, plain_view)
                except Exception:
                    text = ANY
                budget = walk.budget
        else:
            walk.budget = budget
            text = _type(sub, depth, walk, f"{path}_{known[0]}" if path else known[0])
            budget = walk.budget
        needed = key in required
        fields.append((key, text, needed))
        head = known[1] if needed else known[2]
        if not head:
            lines = None  # a key that is not an identifier: the functional form, which has no comments
        elif lines is not None:
            tail = "" if needed else "]"
            lines.append(f"{head}{text}{tail}  # {doc}" if doc else f"{head}{text}{tail}")
    walk.budget = budget
    return fields, lines


def read_returns(output: object, walk: Walk) -> tuple[str, str]:
    """The return annotation and, for an object output with properties, its ``<Tool>Result`` class."""
    if output is None:
        return "str", ""
    try:
        view = _view(output)
        properties = None if view is None else view.get("properties")
    except Exception:
        return ANY, ""
    names = _type_names(view)
    if properties is None or names not in (("object",), ("object", "null"), ("null", "object")):
        return _type(output, 0, walk, "Result"), ""
    fields, lines = read_properties(output, walk, "Result")
    nullable = " | None" if "null" in names else ""
    return f"{walk.stem}Result{nullable}", typed_dict(f"{walk.stem}Result", fields, lines)


def _type_names(view: object) -> tuple[str, ...]:
    """The node's ``type`` as a tuple of names (``()`` when absent or odd)."""
    if not isinstance(view, dict):
        return ()
    kind = view.get("type")
    text = exact_str(kind)
    if text is not None:
        return (text,)
    if kind is not None and _is_sequence(kind):
        names = _take(kind) or []
        return tuple(name for name in map(exact_str, names) if name is not None)
    return ()


def _type(node: object, depth: int, walk: Walk, path: str) -> str:
    """A Python type for one schema node; ``Any`` whatever cannot be expressed or read."""
    walk.budget -= 1
    if walk.budget < 0 or depth > MAX_DEPTH:
        return ANY
    try:
        view = node if type(node) is dict else _view(node)
        if view is None:
            return ANY
        return _type_view(view, depth, walk, path)
    except Exception:
        return ANY


def _type_view(view: dict[object, object], depth: int, walk: Walk, path: str, plain: bool | None = None) -> str:
    """The type of a node read as a mapping (``plain``: whether it holds no schema keyword, when the caller knows)."""
    kind = view.get("type")
    if _no_keywords(view) if plain is None else plain:  # the common cases, same text as below
        if type(kind) is str:
            return _SCALARS.get(kind) or _named_type(kind, view, depth, walk, path)
        if type(kind) is list and len(kind) <= 8 and _exact_strs(kind):
            key = tuple(kind)  # scalar names: their union, memoised by them (they repeat)
            text = walk.unions.get(key)
            if text is None and _SCALARS.keys() >= set(key):
                text = walk.unions[key] = _union([_SCALARS[name] for name in key])
            if text is not None:
                return text
    if "$ref" in view or "allOf" in view:
        return ANY
    if "const" in view:
        return _literal_type([view["const"]])
    enum = view.get("enum")
    if enum is not None:
        if type(enum) is list and len(enum) <= MAX_ITEMS and _exact_strs(enum):
            key = tuple(enum)  # strings: the literal type, memoised by them (they repeat)
            text = walk.enums.get(key)
            if text is None:
                text = walk.enums[key] = _literal_type(enum)
            return text
        return _literal_type(_take(enum) if _is_sequence(enum) else None)
    for combinator in ("anyOf", "oneOf"):
        members = view.get(combinator)
        if members is not None:
            taken = _take(members) if _is_sequence(members) else None
            return ANY if not taken else _union([_type(member, depth + 1, walk, path) for member in taken])
    names = _type_names(view)
    if not names:
        return ANY
    return _union([_named_type(name, view, depth, walk, path) for name in names])


def _named_type(name: str, view: dict[object, object], depth: int, walk: Walk, path: str) -> str:
    scalar = _SCALARS.get(name)
    if scalar is not None:
        return scalar
    if name == "array":
        items = view.get("items")
        if type(items) is dict and walk.budget > 0 and depth < MAX_DEPTH:  # a plain scalar or object: _type's text, fewer calls
            kind = items.get("type")
            if type(kind) is str and (len(items) == 1 or _no_keywords(items)):  # "type" alone, or no keyword
                listed = _LISTS.get(kind)
                if listed is not None:
                    walk.budget -= 1
                    return listed
                if kind == "object" and items.get("properties") is not None:
                    walk.budget -= 1
                    try:
                        return f"list[{_object(items, depth + 1, walk, path + '_Item')}]"
                    except Exception:
                        return f"list[{ANY}]"
        return f"list[{_type(items, depth + 1, walk, path + '_Item') if items is not None else ANY}]"
    if name == "object":
        if view.get("properties") is None:
            extra = view.get("additionalProperties")
            if extra is not None and _view(extra) is not None:
                return f"dict[str, {_type(extra, depth + 1, walk, path + '_Value')}]"
        else:
            return _object(view, depth, walk, path)
        return f"dict[str, {ANY}]"
    return ANY


def _object(view: dict[object, object], depth: int, walk: Walk, path: str) -> str:
    """An object with ``properties``: its own ``TypedDict`` class (``dict[str, Any]`` when it has none)."""
    fields, lines = read_properties(view, walk, path, depth)
    if not fields:
        return f"dict[str, {ANY}]"
    class_name = walk.name(path)
    walk.classes.append(typed_dict(class_name, fields, lines))
    return class_name


def _union(members: list[str]) -> str:
    """``A | B``, deduplicated in first-seen order; ``Any`` absorbs the rest."""
    if ANY in members or not members:
        return ANY
    unique = list(dict.fromkeys(members))
    if len(unique) > MAX_ITEMS:
        return ANY
    return " | ".join(unique)


def _literal_type(values: list[object] | None) -> str:
    """``Literal[...]`` of str/int/bool values (``None`` joins as ``| None``); ``Any`` for anything else."""
    if not values:
        return ANY
    literals: list[str] = []
    nullable = False
    for value in values:
        if value is None:
            nullable = True
        elif isinstance(value, bool):
            literals.append("True" if value else "False")
        elif isinstance(value, int):
            literals.append(int.__repr__(value))
        else:
            text = exact_str(value)
            if text is None:
                return ANY  # floats, containers: no literal type
            literals.append(literal(text))
    unique = list(dict.fromkeys(literals))
    if not unique:
        return "None"
    return f"Literal[{', '.join(unique)}]" + (" | None" if nullable else "")


def _note(description: object) -> str:
    """A property's description as the line of its trailing comment, ``""`` for none."""
    text = description if type(description) is str else exact_str(description)
    return one_line(text) if text else ""


def one_line(text: str) -> str:
    """A description as one ASCII line: the inside of a JSON string literal (:func:`_comment`)."""
    return text if _plain_text(text) else _comment(text)


def _plain_text(text: str) -> bool:
    """Fast path of :func:`one_line` (test_codegen_python checks it gives what _comment gives): a literal
    two characters longer than the text has no escape (each one lengthens it), so the text is ASCII with
    no control character but DEL (which neither form changes), so no whitespace but " "; then no run of
    it and none at an end mean it is its own line."""
    return len(_ENCODE(text)) == len(text) + 2 and "  " not in text and not text.startswith(" ") and not text.endswith(" ") and text != ""


def _comment(text: str) -> str:
    """The rule of :func:`one_line`: every whitespace run collapsed to one space, ASCII-escaped."""
    return literal(" ".join(text.split()))[1:-1]


def literal(text: str) -> str:
    """A Python string literal for ``text``: JSON with ASCII escapes (always valid Python, one line)."""
    return _ENCODE(text)
