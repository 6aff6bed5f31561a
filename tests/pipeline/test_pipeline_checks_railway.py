"""The checks' railway spellings (``check_*``, for a custom pipeline) answer what the ``checked_*`` rules answer."""

from __future__ import annotations

from typing import Any, cast

import pytest
from returns.result import Failure, Success

from dsh_tools.decisions import Accept, Allow, Ask, Block, Deny
from dsh_tools.execution import ToolExecutionResult
from dsh_tools.listener_chain import Refused
from dsh_tools.pipeline.checks import (
    check_post_decision,
    check_pre_decision,
    check_result,
    checked_post_decision,
    checked_pre_decision,
    checked_result,
)
from dsh_tools.content import text_block

PRE: list[Any] = [Allow(), Deny("no"), Ask(None), Ask("why"), Deny(cast(Any, 3)), {"decision": "allow"}, None, Accept()]
POST: list[Any] = [Accept(), Block([text_block("stop")]), Block(cast(Any, "stop")), Allow(), {"type": "accept"}, None]
RESULTS: list[Any] = [
    ToolExecutionResult("c1", [text_block("ok")], False),
    ToolExecutionResult("c2", [text_block("ok")], False),
    ToolExecutionResult("c1", cast(Any, "text"), False),
    {"call_id": "c1"},
    None,
]


def _agrees(railway: object, checked: object) -> bool:
    if type(checked) is Refused:
        return type(railway) is Failure and railway.failure() == checked.problem
    return type(railway) is Success and railway.unwrap() is checked


@pytest.mark.parametrize("value", PRE, ids=repr)
def test_check_pre_decision_answers_what_checked_pre_decision_does(value: object) -> None:
    assert _agrees(check_pre_decision(value), checked_pre_decision(value))


@pytest.mark.parametrize("value", POST, ids=repr)
def test_check_post_decision_answers_what_checked_post_decision_does(value: object) -> None:
    assert _agrees(check_post_decision(value), checked_post_decision(value))


@pytest.mark.parametrize("value", RESULTS, ids=repr)
def test_check_result_answers_what_checked_result_does(value: object) -> None:
    assert _agrees(check_result(value, "c1"), checked_result(value, "c1"))


def test_the_cases_cover_both_answers() -> None:
    answers = [type(checked_pre_decision(v)) is Refused for v in PRE]
    answers += [type(checked_post_decision(v)) is Refused for v in POST]
    answers += [type(checked_result(v, "c1")) is Refused for v in RESULTS]
    assert True in answers and False in answers
