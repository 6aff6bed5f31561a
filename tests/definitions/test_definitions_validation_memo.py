"""validate_args compiles a spec once per spec object, and notices when a dict spec changes."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

import pytest
from pyrsistent import pmap

from dsh_tools.definitions import Prop, validate_args
from dsh_tools.definitions import validation
from dsh_tools.definitions.validation import SPEC_MEMO_SIZE, spec_validator
from dsh_tools.json_values import FrozenDict


@pytest.fixture
def compiles(monkeypatch: pytest.MonkeyPatch) -> list[object]:
    """Every spec ``compile_spec`` is asked to compile, in order (the memo is emptied first)."""
    seen: list[object] = []
    real = validation.compile_spec

    def counting(spec: object) -> Any:
        seen.append(spec)
        return real(spec)

    monkeypatch.setattr(validation, "compile_spec", counting)
    monkeypatch.setattr(validation, "_spec_memo", {})
    return seen


def test_the_same_spec_object_compiles_once(compiles: list[object]) -> None:
    spec = {"path": Prop("string", required=True)}
    for _ in range(5):
        assert validate_args(spec, {"path": "a"}) == []
        assert validate_args(spec, {}) == ["path: missing required property"]
    assert compiles == [spec]
    assert spec_validator(spec) is spec_validator(spec)


def test_an_equal_but_different_spec_object_compiles_again(compiles: list[object]) -> None:
    validate_args({"path": Prop("string")}, {})
    validate_args({"path": Prop("string")}, {})
    assert len(compiles) == 2


def test_a_dict_spec_edited_in_place_is_recompiled(compiles: list[object]) -> None:
    spec: dict[str, Prop] = {"path": Prop("string")}
    assert validate_args(spec, {"path": 1}) == ["path: expected string, got integer"]
    spec["path"] = Prop("integer")
    assert validate_args(spec, {"path": 1}) == []
    spec["mode"] = Prop("string", required=True)
    assert validate_args(spec, {"path": 1}) == ["mode: missing required property"]
    del spec["mode"]
    assert validate_args(spec, {"path": 1}) == []
    assert len(compiles) == 4


@pytest.mark.parametrize("freeze", [pmap, FrozenDict])
def test_an_immutable_spec_is_memoised_by_identity(compiles: list[object], freeze: Any) -> None:
    spec = freeze({"n": Prop("integer", required=True)})
    assert validate_args(spec, {"n": True}) == ["n: expected integer, got boolean"]
    assert validate_args(spec, {"n": 2}) == []
    assert compiles == [spec]
    assert validation._spec_memo[id(spec)][1] is None, "no snapshot needed"


class ComputedSpec(Mapping[str, Prop]):
    """A mapping that computes its items: it may answer differently each time."""

    def __init__(self) -> None:
        self.calls = 0

    def __getitem__(self, key: str) -> Prop:
        return dict(self.items())[key]

    def __iter__(self) -> Iterator[str]:
        self.calls += 1
        return iter(["n"] if self.calls % 2 else ["m"])

    def __len__(self) -> int:
        return 1


def test_other_mapping_types_are_compiled_every_time(compiles: list[object]) -> None:
    spec = ComputedSpec()
    validate_args(spec, {})
    validate_args(spec, {})
    assert len(compiles) == 2 and validation._spec_memo == {}


def test_a_malformed_spec_is_reported_and_never_memoised(compiles: list[object]) -> None:
    spec = {"path": "not a Prop"}
    for _ in range(2):
        (message,) = validate_args(spec, {})
        assert message.startswith("(root): cannot validate against a malformed schema spec: ")
    assert len(compiles) == 2 and validation._spec_memo == {}


def test_the_memo_is_bounded_and_keeps_what_it_holds_alive(compiles: list[object]) -> None:
    specs = [{"n": Prop("integer")} for _ in range(SPEC_MEMO_SIZE + 10)]
    for spec in specs:
        validate_args(spec, {"n": 1})
    memo = validation._spec_memo
    assert len(memo) == SPEC_MEMO_SIZE
    assert all(held is specs[index + 10] for index, (held, _, _) in enumerate(memo.values())), "oldest dropped first"
    assert all(key == id(held) for key, (held, _, _) in memo.items())


def test_the_memo_names_still_import_from_their_old_module() -> None:
    """The documented ``validation`` path of ``validate_args`` and its memo is a contract."""
    from dsh_tools.definitions.validation import SPEC_MEMO_SIZE as old_size
    from dsh_tools.definitions.validation import spec_validator as old_spec_validator
    from dsh_tools.definitions.validation import validate_args as old_validate_args

    assert old_validate_args is validate_args and old_spec_validator is spec_validator and old_size == SPEC_MEMO_SIZE
    with pytest.raises(AttributeError, match="no attribute 'nowhere'"):
        getattr(validation, "nowhere")
