"""An MCP server that answers the handshake and then nothing: ``tools/list`` waits for ever."""

from __future__ import annotations

from typing import Any

from by_hand import serve


def answer(method: str, message_id: object, message: dict[str, Any]) -> None:
    """Every request after ``initialize`` goes unanswered."""


if __name__ == "__main__":
    serve("mute", answer)
