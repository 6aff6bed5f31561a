"""Every Python block in README.md and docs/*.md runs as written, prints what it says, and passes mypy --strict.

The blocks are found, run and print-checked by ``pytest-examples`` (a
well-kept plugin: it runs each block as its own ``__main__`` module and
compares every ``print`` with the ``#>`` lines under it). A block runs
alone, as a reader pasting it into a file would run it, unless it is a
*fragment*: its fence says ``python {continues="<name>"}``, naming an earlier
block of the same page (```` ```python {name="<name>"} ````), and its first
line says so to the reader (``# continued from "<name>"``). A fragment runs
after the chain of blocks it continues, as one module. Each block, so
assembled, is also checked by ``mypy --strict`` (one run for all of them).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest
from mypy import api as mypy_api
from pytest_examples import CodeExample, EvalExample, find_examples

REPO = Path(__file__).resolve().parents[2]
PAGES = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
EXAMPLES = [example for example in find_examples(*PAGES) if example.prefix.split()[0] in ("py", "python")]
FRAGMENT_LINE = re.compile(r'# continued from "([^"]+)"\n')


def block_id(example: CodeExample) -> str:
    return f"{example.path.name}:{example.start_line}"


def chain(example: CodeExample) -> Iterator[CodeExample]:
    """The blocks ``example`` continues, outermost first, then itself."""
    wanted = example.prefix_settings().get("continues")
    if wanted is not None:
        earlier = [e for e in EXAMPLES if e.path == example.path and e.start_line < example.start_line]
        named = [e for e in earlier if e.prefix_settings().get("name") == wanted]
        assert named, f'{block_id(example)} continues "{wanted}", which no earlier block of the page is named'
        yield from chain(named[-1])
    yield example


def assembled(example: CodeExample) -> CodeExample:
    """One module: the chain's sources in order (the ``#>`` lines of each stay under their prints)."""
    source = "\n".join(block.source for block in chain(example))
    made: CodeExample = CodeExample.create(source, path=example.path, start_line=example.start_line, prefix=example.prefix)
    return made


def test_the_pages_have_python_blocks_and_fragments_say_what_they_continue() -> None:
    assert len(EXAMPLES) >= 35
    names: dict[tuple[Path, str], str] = {}
    for example in EXAMPLES:
        settings = example.prefix_settings()
        name = settings.get("name")
        if name is not None:
            assert (example.path, name) not in names, f'{block_id(example)}: "{name}" names two blocks'
            names[(example.path, name)] = block_id(example)
        wanted = settings.get("continues")
        first = FRAGMENT_LINE.match(example.source)
        if wanted is None:
            assert first is None, f"{block_id(example)} says it continues a block, but its fence does not"
        else:
            assert first is not None and first.group(1) == wanted, (
                f'{block_id(example)}: a fragment starts with # continued from "{wanted}"'
            )
            list(chain(example))


@pytest.mark.parametrize("example", EXAMPLES, ids=block_id)
def test_a_block_runs_as_written_and_prints_what_it_says(example: CodeExample, eval_example: EvalExample) -> None:
    eval_example.run_print_check(assembled(example))


def test_every_block_passes_mypy_strict(tmp_path: Path) -> None:
    files: list[str] = []
    origin: dict[str, str] = {}
    for index, example in enumerate(EXAMPLES):
        path = tmp_path / f"block_{index:03d}.py"
        path.write_text(assembled(example).source, encoding="utf-8")
        files.append(str(path))
        origin[path.name] = block_id(example)
    out, err, status = mypy_api.run(_mypy_args(files))
    problems = [_located(line, origin) for line in out.splitlines() if ": error:" in line or ": note:" in line]
    assert status == 0, "mypy --strict on the doc blocks:\n" + "\n".join(problems) + err


def _mypy_args(files: Sequence[str]) -> list[str]:
    return ["--strict", "--config-file", str(REPO / "pyproject.toml"), *files]


def _located(line: str, origin: dict[str, str]) -> str:
    """``block_007.py:3: error: ...`` → ``README.md:76, line 3 of the block (as assembled): error: ...``."""
    file, _, rest = line.partition(":")
    number, _, message = rest.partition(":")
    name = Path(file).name
    return f"{origin[name]}, line {number} of the block (as assembled):{message}" if name in origin else line
