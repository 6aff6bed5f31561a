"""A realistic tool catalog for the codegen golden and Deno tests.

Plain Python data shaped like what plugins and MCP servers register: coding
tools (read/write/edit, bash, grep) plus MCP-style schemas exercising every
rendering rule — integer, anyOf, oneOf, const, nullable type lists,
non-string enums, additionalProperties, $ref/$defs recursion, allOf,
exotic tool and property names, and descriptions carrying ``*/`` and
newlines. Typed tools (an ``output_schema``, as ``define_tool(output=...)``
makes them) declare what their Promise resolves to: an object, a list of
objects, a scalar, and nullable ones (``-> User | None``, ``-> str | None``,
``Optional`` fields of an output record; ``test_codegen_nullable`` checks that
``@tool`` maps those annotations to exactly these schemas), unions and
``dict[str, X]`` values (``-> str | int``, ``-> Hit | Miss``, ``-> dict[str,
int]``, ``-> dict[str, list[Hit | Miss]] | None``; ``test_codegen_unions``
checks those the same way).
"""

from __future__ import annotations

from typing import Any

Tool = dict[str, Any]

HIT: dict[str, Any] = {
    "type": "object",
    "properties": {
        "kind": {"type": "string", "enum": ["hit"]},
        "path": {"type": "string", "description": "Relative to the workspace."},
        "line": {"type": "integer"},
    },
    "required": ["kind", "path", "line"],
}
"""A tagged union's members (``find_symbol``, ``symbols_by_file``): one shared node each, as a registry may hold it."""
MISS: dict[str, Any] = {
    "type": "object",
    "properties": {"kind": {"type": "string", "enum": ["miss"]}, "reason": {"type": "string"}},
    "required": ["kind", "reason"],
}

CATALOG: list[Tool] = [
    {
        "name": "read_file",
        "description": "Read a text file.\nReturns numbered lines.",
        "parameters": {
            "type": "object",
            "properties": {
                "path": {"type": "string", "description": "Absolute path of the file."},
                "offset": {"type": "integer", "description": "First line to read (1-based)."},
                "limit": {"type": "integer", "minimum": 1},
            },
            "required": ["path"],
            "additionalProperties": False,
        },
    },
    {
        "name": "write_file",
        "description": "Write a file, replacing it. Use /* comments */ freely.",
        "parameters": {
            "type": "object",
            "properties": {
                "path": {"type": "string"},
                "content": {
                    "type": "string",
                    "description": "Full new content.\n  Ends a comment: */ (escaped).",
                },
            },
            "required": ["path", "content"],
        },
    },
    {
        "name": "edit_file",
        "description": "Apply exact-text replacements to a file.",
        "parameters": {
            "type": "object",
            "properties": {
                "path": {"type": "string"},
                "edits": {
                    "type": "array",
                    "description": "Replacements, applied in order.",
                    "items": {
                        "type": "object",
                        "properties": {
                            "oldText": {"type": "string", "description": "Text to find (must be unique)."},
                            "newText": {"type": "string"},
                        },
                        "required": ["oldText", "newText"],
                    },
                },
                "dryRun": {"type": "boolean", "default": False},
            },
            "required": ["path", "edits"],
        },
    },
    {
        "name": "bash",
        "description": "Run a shell command.",
        "parameters": {
            "type": "object",
            "properties": {
                "command": {"type": "string"},
                "timeout": {"type": ["integer", "null"], "description": "Milliseconds; null for none."},
                "env": {"type": "object", "additionalProperties": {"type": "string"}},
            },
            "required": ["command"],
        },
    },
    {
        "name": "grep",
        "description": "Search file contents with a regular expression.",
        "parameters": {
            "type": "object",
            "properties": {
                "pattern": {"type": "string"},
                "path": {"type": "string"},
                "output_mode": {"type": "string", "enum": ["content", "files_with_matches", "count"]},
                "-i": {"type": "boolean", "description": "Case-insensitive."},
                "-A": {"type": "integer"},
                "context": {"anyOf": [{"type": "integer"}, {"type": "null"}]},
                "globs": {"type": ["array", "null"], "items": {"type": ["string", "number"]}},
            },
            "required": ["pattern"],
        },
    },
    {
        "name": "mcp.search",
        "description": "MCP: search the index.",
        "parameters": {
            "type": "object",
            "properties": {
                "query": {"type": "string"},
                "filter": {
                    "oneOf": [
                        {"type": "string"},
                        {
                            "type": "object",
                            "properties": {
                                "field": {"type": "string"},
                                "value": {"type": ["string", "number", "boolean"]},
                            },
                            "required": ["field"],
                        },
                    ]
                },
                "mode": {"const": "fuzzy"},
            },
            "required": ["query"],
        },
    },
    {
        "name": "my-tool",
        "description": "A hyphenated MCP tool name.",
        "parameters": {
            "type": "object",
            "properties": {"version": {"const": 2}, "flag": {"const": True}, "nothing": {"const": None}},
            "required": ["version"],
        },
    },
    {
        "name": "set_level",
        "description": "Set the verbosity level.",
        "parameters": {
            "type": "object",
            "properties": {
                "level": {"enum": [0, 1, 2.5, -3, None, True]},
                "scale": {"type": "number", "enum": [1, 10, 100]},
            },
            "required": ["level"],
        },
    },
    {
        "name": "tree",
        "description": "Create a directory tree from a recursive spec.",
        "parameters": {
            "type": "object",
            "$defs": {
                "Node": {
                    "type": "object",
                    "description": "A file or directory.",
                    "properties": {
                        "name": {"type": "string"},
                        "children": {"type": "array", "items": {"$ref": "#/$defs/Node"}},
                    },
                    "required": ["name"],
                }
            },
            "properties": {"root": {"$ref": "#/$defs/Node"}},
            "required": ["root"],
        },
    },
    {
        "name": "http_request",
        "description": "Send an HTTP request.",
        "parameters": {
            "type": "object",
            "definitions": {"Method": {"type": "string", "enum": ["GET", "POST", "PUT", "DELETE"]}},
            "properties": {
                "url": {"type": "string", "format": "uri"},
                "method": {"$ref": "#/definitions/Method"},
                "headers": {"type": "object", "additionalProperties": {"type": "string"}},
                "body": {"anyOf": [{"type": "string"}, {"type": "object"}, {"type": "null"}]},
                "Content-Type": {"type": "string"},
            },
            "required": ["url", "method"],
        },
    },
    {
        "name": "new",
        "description": "A tool whose name is a TypeScript keyword in method position.",
        "parameters": {
            "type": "object",
            "properties": {"kind": {"type": "string", "enum": ["file", "dir"]}},
            "required": ["kind"],
        },
    },
    {
        "name": "config_patch",
        "description": "Patch the configuration.",
        "parameters": {
            "allOf": [
                {"type": "object", "properties": {"target": {"type": "string"}}, "required": ["target"]},
                {"type": "object", "properties": {"dry": {"type": "boolean"}}},
            ]
        },
    },
    {
        "name": "list_tools",
        "description": "",
        "parameters": {"type": "object", "properties": {}},
    },
    {
        "name": "搜索",
        "description": "Unicode tool name; quoted.",
        "parameters": {"type": "object", "properties": {"词": {"type": "string"}}, "required": ["词"]},
    },
    {
        "name": "count_words",
        "description": "Count the words, lines and characters of a text.",
        "parameters": {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]},
        "output_schema": {
            "type": "object",
            "properties": {
                "words": {"type": "integer"},
                "lines": {"type": "integer"},
                "characters": {"type": "integer"},
            },
            "required": ["words", "lines", "characters"],
        },
    },
    {
        "name": "search_text",
        "description": "Find the lines that contain a string.",
        "parameters": {"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]},
        "output_schema": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "path": {"type": "string", "description": "Relative to the workspace."},
                    "line": {"type": "integer"},
                    "text": {"type": "string"},
                },
                "required": ["path", "line", "text"],
            },
        },
    },
    {
        "name": "job_id",
        "description": "Start a job; resolves to its id.",
        "parameters": {"type": "object", "properties": {}},
        "output_schema": {"type": "string"},
    },
    {
        "name": "is_clean",
        "description": "Whether the tree has no changes.",
        "parameters": {"type": "object", "properties": {}},
        "output_schema": {"type": "boolean"},
    },
    {
        "name": "find_user",
        "description": "Look a user up by login; null when there is none.",
        "parameters": {"type": "object", "properties": {"login": {"type": "string"}}, "required": ["login"]},
        "output_schema": {
            "type": ["object", "null"],
            "properties": {
                "name": {"type": "string"},
                "email": {"type": ["string", "null"]},
                "role": {"type": ["string", "null"], "enum": ["admin", "member", None]},
                "manager": {
                    "type": ["object", "null"],
                    "properties": {"login": {"type": "string"}},
                    "required": ["login"],
                },
                "teams": {"type": ["array", "null"], "items": {"type": "string"}},
            },
            "required": ["name", "email", "role", "manager", "teams"],
        },
    },
    {
        "name": "read_note",
        "description": "The note's text; null when it was never written.",
        "parameters": {"type": "object", "properties": {"key": {"type": "string"}}, "required": ["key"]},
        "output_schema": {"type": ["string", "null"]},
    },
    {
        "name": "resolve_ref",
        "description": "A commit id, or a pull request number.",
        "parameters": {"type": "object", "properties": {"ref": {"type": "string"}}, "required": ["ref"]},
        "output_schema": {"anyOf": [{"type": "string"}, {"type": "integer"}]},
    },
    {
        "name": "find_symbol",
        "description": "Where a symbol is defined.",
        "parameters": {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]},
        "output_schema": {"anyOf": [HIT, MISS]},
    },
    {
        "name": "word_counts",
        "description": "How often each word occurs.",
        "parameters": {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]},
        "output_schema": {"type": "object", "additionalProperties": {"type": "integer"}},
    },
    {
        "name": "symbols_by_file",
        "description": "Each file's findings; null when nothing was indexed.",
        "parameters": {
            "type": "object",
            "properties": {"names": {"type": "array", "items": {"type": "string"}}},
            "required": ["names"],
        },
        "output_schema": {
            "type": ["object", "null"],
            "additionalProperties": {"type": "array", "items": {"anyOf": [HIT, MISS]}},
        },
    },
]
