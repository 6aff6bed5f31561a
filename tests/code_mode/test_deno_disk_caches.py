"""A program cannot store data on disk through Deno's own caches.

Deno keeps three caches in its ``DENO_DIR`` (the runtime's private directory,
shared by all the runtime's processes and kept until ``dispose()``), and it
fills them without any permission: the transpiled text of every TypeScript
module (``gen/``), V8's compiled code of every module (``v8_code_cache_v2``)
and each module's dependency analysis (``dep_analysis_cache_v2``, which holds
every import specifier, type-only ones included). A program that imports
blob modules of its own making therefore wrote tens of megabytes a second to
the host's disk, and what one run wrote stayed there for the next runs: no
bound held it. None of them is kept now.
"""

from __future__ import annotations

import os

import pytest

from deno_support import runtimes  # noqa: F401  # the fixture

from dsh_tools.code_mode.deno import DenoCodeRuntime
from dsh_tools.code_mode.runtime import CodeRunRequest

MAX_GROWTH = 1 << 20
"""What a run may add to the private directory (SQLite journals of a few pages, at most)."""

WRITER = """
// Each module is new (a random tail), so each is transpiled, compiled and analysed anew.
const pad = "// " + "x".repeat(1 << 19) + "\\n";
const imports = Array.from({ length: 5000 }, (_, i) => `import type { T${i} } from "./${"y".repeat(40)}${i}.ts";`).join("\\n");
for (let i = 0; i < 8; i++) {
  const source = `${pad}${imports}\\nexport const n: number = ${i}; // ${Math.random()}`;
  await import(URL.createObjectURL(new Blob([source], { type: "application/typescript" })));
}
return "imported";
"""

COMPILED = """
// Code, not comments: V8's code cache would keep the compiled functions of each new module.
const body = Array.from({ length: 20000 }, (_, i) => `export function f${i}(a) { return a * ${i} + ${i} - (a >> 1) ^ ${i}; }`).join("\\n");
for (let i = 0; i < 8; i++) {
  const module = await import(URL.createObjectURL(new Blob([`${body}\\nexport const n = ${i}; // ${Math.random()}`], { type: "application/javascript" })));
  for (let j = 0; j < 20000; j++) module["f" + j](j);
}
return "imported";
"""


def disk_usage(path: str) -> int:
    """Bytes of disk the files under ``path`` take (symbolic links count as themselves)."""
    total = 0
    for root, _, files in os.walk(path):
        for name in files:
            total += os.lstat(os.path.join(root, name)).st_blocks * 512
    return total


@pytest.mark.parametrize("writer", [WRITER, COMPILED], ids=["transpiled-and-analysed", "compiled"])
async def test_modules_a_program_imports_leave_nothing_on_disk(runtimes: list[DenoCodeRuntime], writer: str) -> None:
    rt = DenoCodeRuntime(compute_ms=20_000, max_wall_ms=60_000, pool_size=0)
    runtimes.append(rt)
    first = await rt.run(CodeRunRequest("return 1", []))  # Deno's own first writes are not the program's
    assert first.value == 1, first.error
    assert rt._owned.dir is not None
    before = disk_usage(rt._owned.dir)

    for _ in range(2):
        result = await rt.run(CodeRunRequest(writer, []))
        assert result.error is None and result.value == "imported", result.error

    growth = disk_usage(rt._owned.dir) - before
    assert growth < MAX_GROWTH, f"two runs left {growth >> 10} KiB in the runtime's directory"
