"""Which build of the renderer this run tests, and the mark for tests that need its sources.

``make test`` runs the whole suite on the build the install made (compiled
with mypyc where the machine can compile), then ``tests/codegen`` again on the
Python sources (``DSH_TOOLS_PURE_PYTHON=1``). A test that patches the
renderer's internals can only see them in the sources, as compiled code calls
its own functions natively; it is marked :data:`SOURCES_ONLY` and runs in the
second pass.
"""

from __future__ import annotations

from typing import Final

import pytest

from dsh_tools_codegen._implementation import IMPLEMENTATION

COMPILED: Final = IMPLEMENTATION == "compiled"
SOURCES_ONLY: Final = pytest.mark.skipif(
    COMPILED,
    reason="patches the renderer's internals, which compiled code calls natively; "
    "make test runs tests/codegen on the sources too (DSH_TOOLS_PURE_PYTHON=1)",
)
