"""read_size: the one reader of "200" / "20%" sizes (budgets and batches)."""

from __future__ import annotations

import re
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fairacq._validation import read_size
from fairacq.exceptions import InvalidParameterError


@pytest.mark.parametrize(
    ("value", "kwargs", "expected"),
    [
        ("20%", {}, 200),
        (" 12.5 % ", {}, 125),
        (".5%", {}, 5),
        ("30", {}, 30),
        (30, {}, 30),
        ("0.05%", {}, 0),
        ("0.05%", {"minimum": 1}, 1),
        ("0.15%", {"rounding": "round"}, 2),
        ("0.15%", {"rounding": "floor"}, 1),
    ],
)
def test_counts_and_shares(value: Any, kwargs: dict, expected: int) -> None:
    assert read_size(value, 1000, **kwargs) == expected


@given(pct=st.floats(0.01, 100), total=st.integers(1, 10**6))
def test_a_floored_share_never_exceeds_what_was_asked(pct: float, total: int) -> None:
    got = read_size(f"{pct}%", total)
    assert got <= pct / 100 * total + 1e-9 * total
    assert got > pct / 100 * total - 1 - 1e-9 * total


@pytest.mark.parametrize(
    ("value", "words"),
    [
        (0.2, "is not a size"),
        ("0.2", "is not a size"),
        ("20 rows", "is not a size"),
        (True, "is not a size"),
        (None, "is not a size"),
        ("-5%", "is not a size"),
        ("0%", "not a percentage in (0%, 100%]"),
        ("150%", "not a percentage in (0%, 100%]"),
    ],
)
def test_other_forms_are_refused_naming_both(value: Any, words: str) -> None:
    with pytest.raises(InvalidParameterError, match=re.escape(words)) as info:
        read_size(value, 100, name="--batch")
    assert str(info.value).startswith("--batch")


def test_a_count_below_the_minimum_is_refused() -> None:
    with pytest.raises(InvalidParameterError, match="at least 1, got 0"):
        read_size("0", 100, minimum=1)
