"""Definitions that misbehave at registration raise a clear error and leave nothing behind."""

from __future__ import annotations

from typing import Any

import pytest

from dsh_tools import ContentBlock, ToolExecution, boot


def test_a_definition_whose_properties_raise_is_a_type_error_naming_it() -> None:
    class Hostile:
        name = "hostile"
        description = "Its parameters property explodes."

        @property
        def parameters(self) -> dict[str, Any]:
            raise RuntimeError("no schema for you")

        async def execute(self, args: Any, exec: ToolExecution) -> list[ContentBlock]:
            return []

    ctx = boot()
    with pytest.raises(TypeError, match=r'"hostile": reading \'parameters\' raised RuntimeError: no schema for you'):
        ctx.tools.register(Hostile())
    assert ctx.tools.get("hostile") is None
