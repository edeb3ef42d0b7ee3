"""The filtering results share fairacq's result protocol: to_frame, save / load, a caption."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from fairacq import Result
from fairacq.data import TableColumns
from fairacq.exceptions import CorruptFileError
from fairacq.filtering import (
    PROBABILITY_COLUMN,
    LinearRule,
    SplitGameResult,
    TableFilterResult,
    TreeRule,
    filter_table,
    fit_table_proxy,
    play_split_game,
)


def _table(n: int = 120) -> pd.DataFrame:
    """Job and years tell the groups apart, so the proxy admits them unevenly."""
    rng = np.random.default_rng(0)
    sex = rng.choice(["F", "M"], n, p=[0.3, 0.7])
    job = np.where(rng.random(n) < 0.8, np.where(sex == "F", "nurse", "welder"), "clerk")
    years = rng.integers(0, 20, n) + np.where(sex == "F", 0, 10)
    hired = rng.choice(["y", "n"], n)
    return pd.DataFrame({"job": job, "years": years, "sex": sex, "hired": hired})


@pytest.fixture(scope="module")
def table_result() -> TableFilterResult:
    table = _table()
    columns = TableColumns("hired", ("sex",), positive="y")
    proxy = fit_table_proxy(table, columns, "qp-tree", random_state=0)
    return filter_table(proxy, table.drop(columns=["hired"]), random_state=0)


def test_table_result_is_a_result_whose_table_is_the_admitted_rows(
    table_result: TableFilterResult,
) -> None:
    assert isinstance(table_result, Result)
    frame = table_result.to_frame()
    assert list(frame.columns) == ["job", "years", "sex", PROBABILITY_COLUMN]
    assert len(frame) == int(table_result.mask.sum()) == table_result.trace.final("n_admitted")
    frame.loc[0, "job"] = "changed"  # a copy: the result stays as it was
    assert table_result.rows.loc[0, "job"] != "changed"


def test_table_result_caption_gives_counts_and_imbalance(
    table_result: TableFilterResult,
) -> None:
    n, k = len(table_result.mask), int(table_result.mask.sum())
    assert 0 < k < n
    beta = table_result.trace.final("beta_admitted")
    caption = f"admitted {k} of {n} candidates; imbalance of the admitted groups {beta:.3f}"
    assert table_result._caption() == caption
    assert f"<b>TableFilterResult</b>: {caption}" in table_result._repr_html_()


def test_table_result_without_groups_has_no_imbalance_in_its_caption() -> None:
    table = _table()
    proxy = fit_table_proxy(table, TableColumns("hired", ("sex",), positive="y"), "qp-tree")
    blind = filter_table(proxy, table, random_state=1, evaluate=False, all_rows=True)
    assert blind._caption() == f"admitted {int(blind.mask.sum())} of 120 candidates"
    assert blind.to_frame()["admitted"].tolist() == blind.mask.tolist()


def test_table_result_round_trip(table_result: TableFilterResult, tmp_path: Path) -> None:
    back = TableFilterResult.load(table_result.save(tmp_path / "r"))
    pd.testing.assert_frame_equal(back.to_frame(), table_result.to_frame())
    np.testing.assert_array_equal(back.mask, table_result.mask)
    assert back.mask.dtype == np.bool_
    assert back.trace == table_result.trace
    assert back.group_counts == table_result.group_counts
    assert back.group_counts is not None
    assert set(back.group_counts) == {"F", "M"}
    assert back.summary() == table_result.summary()
    with pytest.raises(CorruptFileError, match="holds a TableFilterResult, not a SplitGame"):
        SplitGameResult.load(tmp_path / "r")


def _game(oracle: str) -> tuple[SplitGameResult, np.ndarray]:
    rng = np.random.default_rng(1)
    X = rng.normal(size=(150, 3))
    codes = rng.integers(0, 2, 150)
    prior = np.bincount(codes) / 150
    objective = np.where(codes == 1, -0.2, 0.2) + 0.1 * X[:, 0]
    game = play_split_game(
        X, codes, np.ones(150), objective, prior, 0.5, oracle=oracle, max_iter=4
    )
    return game, X


@pytest.mark.parametrize(("oracle", "kind"), [("paired-regression", "linear"), ("tree", "tree")])
def test_split_game_table_has_one_row_per_rule_with_its_probability(
    oracle: str, kind: str
) -> None:
    game, X = _game(oracle)
    frame = game.to_frame()
    assert list(frame.columns) == ["rule", "kind", "probability"]
    assert frame["rule"].tolist() == [0, 1, 2, 3]
    assert frame["kind"].tolist() == [kind] * 4
    np.testing.assert_allclose(frame["probability"], 0.25)
    # The mixture's answer on the rows is the rules' answers weighted by these probabilities.
    votes = np.array([rule.predict(X) for rule in game.rules], dtype=float)
    np.testing.assert_allclose(frame["probability"].to_numpy() @ votes, game.p_one)
    caption = game._caption()
    assert caption.startswith("a mixture of 4 rules after 4 rounds; duality gap ")


@pytest.mark.parametrize(
    ("oracle", "cls"), [("paired-regression", LinearRule), ("tree", TreeRule)]
)
def test_split_game_round_trip_keeps_the_rules(oracle: str, cls: type, tmp_path: Path) -> None:
    game, X = _game(oracle)
    back = SplitGameResult.load(game.save(tmp_path / "g"))
    assert all(type(rule) is cls for rule in back.rules)
    assert [r.to_dict() for r in back.rules] == [r.to_dict() for r in game.rules]
    for old, new in zip(game.rules, back.rules, strict=True):
        np.testing.assert_array_equal(new.predict(X), old.predict(X))
    np.testing.assert_array_equal(back.p_one, game.p_one)
    assert (back.iterations, back.duality_gap, back.max_violation) == (
        game.iterations,
        game.duality_gap,
        game.max_violation,
    )
    pd.testing.assert_frame_equal(back.to_frame(), game.to_frame())
