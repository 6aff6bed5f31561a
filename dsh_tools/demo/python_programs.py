"""The demo's programs in Python, for ``dsh-tools demo --mode code --language python``.

The same two programs as the TypeScript ones in :mod:`dsh_tools.demo.script`
(a chain over typed values with a caught denial; a program whose write
waits for a human), written against the Python SDK, so the transcript shows
the same behaviour whichever language the model writes.
"""

from __future__ import annotations

from typing import Final

__all__ = ["CODE_PROGRAM_PYTHON", "PAUSED_PROGRAM_PYTHON", "program_for"]

CODE_PROGRAM_PYTHON: Final = """\
entries = await tools.list_dir(path=".")
names = [entry["name"] + "/" if entry["kind"] == "dir" else entry["name"] for entry in entries]
print("workspace:", ", ".join(names))
todos = await tools.search_text(query="TODO")
todo_files = sorted({hit["path"] for hit in todos})
print(f"found {len(todos)} TODO lines in {', '.join(todo_files)}")
counts = await tools.count_words(path="README.md")
print(f"README.md: {counts['words']} words, {counts['words'] / counts['lines']:.1f} a line")
try:
    await tools.read_file(path="secrets.txt")
    secrets = "read"
except ToolError as error:
    secrets = "denied: " + str(error)
print("secrets.txt", secrets)
return {"dirs": len([e for e in entries if e["kind"] == "dir"]), "todos": len(todos), "words": counts["words"]}
"""

PAUSED_PROGRAM_PYTHON: Final = """\
counts = await tools.count_words(path="README.md")
print(f"README.md has {counts['words']} words; writing that down")
await tools.write_file(path="notes/words.md", content=f"README.md: {counts['words']} words\\n")
return await tools.read_file(path="notes/words.md")
"""


def program_for(language: str, typescript: str, python: str) -> str:
    """The program of the registry's Code Mode language."""
    return python if language == "python" else typescript
