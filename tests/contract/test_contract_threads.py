"""Contract: a thread's readers are the SDKs' own param types under ``mypy --strict`` (no cast), and the wrong SDK is an error."""

from __future__ import annotations

from pathlib import Path

from mypy_snippets import check_snippet, mypy_cache  # noqa: F401 - mypy_cache is a fixture

GOOD = '''
from anthropic import AsyncAnthropic
from openai import AsyncOpenAI

from dsh_tools import Agent, Context
from dsh_tools.adapters import anthropic, openai
from dsh_tools.threads import Thread, ThreadConflictError, ThreadWaitingError, open_thread


async def chat(ctx: Context, agent: Agent, client: AsyncOpenAI) -> Thread:
    thread = await open_thread(ctx.tools.store, "t")
    thread = await thread.append({"role": "user", "content": "hi"})
    completion = await client.chat.completions.create(model="m", messages=thread.chat_messages())
    return await openai.run_chat_turn(ctx, thread, completion, agent=agent)


async def responses(ctx: Context, agent: Agent, client: AsyncOpenAI, thread: Thread) -> Thread:
    response = await client.responses.create(model="m", input=thread.responses_input())
    return await openai.run_responses_turn(ctx, thread, response, agent=agent)


async def claude(ctx: Context, agent: Agent, client: AsyncAnthropic, thread: Thread) -> Thread:
    message = await client.messages.create(model="m", max_tokens=10, messages=thread.anthropic_messages())
    return await anthropic.run_turn(ctx, thread, message, agent=agent)


def fields(thread: Thread) -> tuple[str, str | None, int, str, tuple[str, ...], tuple[str, ...], bool]:
    return (thread.thread_id, thread.provider, thread.version, thread.status, thread.pending_calls, thread.waiting_on,
            thread.wants_reply)


errors: tuple[type[Exception], ...] = (ThreadConflictError, ThreadWaitingError)
'''

BAD = '''
from anthropic import AsyncAnthropic
from openai import AsyncOpenAI

from dsh_tools.threads import Thread


async def crossed(thread: Thread, claude: AsyncAnthropic, gpt: AsyncOpenAI) -> None:
    await claude.messages.create(model="m", max_tokens=10, messages=thread.responses_input())
    await gpt.chat.completions.create(model="m", messages=thread.anthropic_messages())
'''


def test_the_readers_type_check_as_the_sdks_params_without_casts(tmp_path: Path, mypy_cache: Path) -> None:  # noqa: F811
    checked = check_snippet(tmp_path, mypy_cache, "threads_good.py", GOOD)
    assert checked.errors == [], checked.stdout
    assert "cast(" not in GOOD and "type: ignore" not in GOOD


def test_handing_one_providers_messages_to_another_is_a_type_error(tmp_path: Path, mypy_cache: Path) -> None:  # noqa: F811
    checked = check_snippet(tmp_path, mypy_cache, "threads_bad.py", BAD)
    lines = {int(line.split(":")[1]) for line in checked.errors if ": error:" in line}
    assert lines == {9, 10}, checked.stdout
