"""Every public ``*Result`` class shares the result protocol (``fairacq.Result``).

The classes are read from the pinned public API (``tests/public_api.txt``), so a new result
class is checked the day it is exported: it must subclass :class:`fairacq.Result`, be a
frozen dataclass (saving walks its fields) and implement ``to_frame``.
"""

from __future__ import annotations

import dataclasses
import importlib
from pathlib import Path

import pytest

from fairacq import Result

SNAPSHOT = Path(__file__).with_name("public_api.txt")

# Public result classes not converted to the protocol yet ("fairacq.family.NameResult"),
# skipped by test_every_public_result_shares_the_protocol. Remove each name once its class
# is converted: a name left here once its class is a Result (or no longer public) fails
# test_pending_classes_are_not_converted_yet, so the set cannot go stale.
PENDING: set[str] = set()


def _result_names() -> list[str]:
    names = SNAPSHOT.read_text(encoding="utf-8").splitlines()
    return [n for n in names if n.rsplit(".", 1)[-1].endswith("Result") and n != "fairacq.Result"]


def _load(name: str) -> type:
    module, _, attr = name.rpartition(".")
    cls = getattr(importlib.import_module(module), attr)
    assert isinstance(cls, type), f"{name} is not a class"
    return cls


def _problems(cls: type) -> list[str]:
    """What keeps ``cls`` from sharing the protocol ([] when it does)."""
    found = []
    if not issubclass(cls, Result):
        found.append("does not subclass fairacq.Result")
    elif "to_frame" in getattr(cls, "__abstractmethods__", ()):
        found.append("leaves to_frame abstract")
    params = getattr(cls, "__dataclass_params__", None)
    if not dataclasses.is_dataclass(cls) or params is None or not params.frozen:
        found.append("is not a frozen dataclass")
    return found


def test_the_snapshot_lists_result_classes():
    names = _result_names()
    assert "fairacq.compare.CompareResult" in names
    assert "fairacq.Result" not in names


@pytest.mark.parametrize("name", [n for n in _result_names() if n not in PENDING])
def test_every_public_result_shares_the_protocol(name):
    assert _problems(_load(name)) == [], name


def _stale(name: str) -> str | None:
    """Why ``name`` should leave PENDING (None while it is still to convert)."""
    if name not in _result_names():
        return f"{name} is no longer public"
    try:
        cls = _load(name)
    except (ImportError, AttributeError):
        return f"{name} cannot be imported"
    return None if _problems(cls) else f"{name} is a Result now"


def test_pending_classes_are_not_converted_yet():
    stale = [why for name in sorted(PENDING) if (why := _stale(name))]
    assert not stale, f"remove from PENDING: {stale}"


def test_a_converted_class_left_pending_is_caught():
    assert (
        _stale("fairacq.compare.CompareResult") == "fairacq.compare.CompareResult is a Result now"
    )
    assert (
        _stale("fairacq.filtering.NoSuchResult")
        == "fairacq.filtering.NoSuchResult is no longer public"
    )


def test_the_check_catches_a_class_outside_the_protocol():
    @dataclasses.dataclass(frozen=True)
    class LooseResult:
        n: int

    @dataclasses.dataclass
    class MutableResult(Result):
        n: int

        def to_frame(self):  # pragma: no cover - never called
            raise NotImplementedError

    @dataclasses.dataclass(frozen=True)
    class NoTableResult(Result):
        n: int

    assert _problems(LooseResult) == ["does not subclass fairacq.Result"]
    assert _problems(NoTableResult) == ["leaves to_frame abstract"]
    assert _problems(MutableResult) == ["is not a frozen dataclass"]
