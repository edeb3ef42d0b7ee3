"""Proxies on a user's raw table: encoder inside the JSON, raw candidates, any classifier."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from sklearn.ensemble import RandomForestClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import MinMaxScaler, StandardScaler
from sklearn.tree import DecisionTreeClassifier

from fairacq.data import TableColumns, load_dataset
from fairacq.exceptions import (
    CorruptFileError,
    InvalidDataError,
    InvalidParameterError,
    ResultWarning,
)
from fairacq.filtering import (
    PROBABILITY_COLUMN,
    BalancedFilter,
    EstimatorRule,
    LinearRule,
    TableProxy,
    TreeRule,
    check_saveable_model,
    filter_table,
    fit_proxy,
    fit_table_proxy,
    load_proxy,
    proxy_to_dict,
    save_proxy,
)

COLUMNS = TableColumns("verdict", ("region",), positive="accept", drop=("badge",))
REGIONS = ("coast", "hills", "plains")


def make_table(n: int = 360, seed: int = 0, *, shares=(0.5, 0.3, 0.2)) -> pd.DataFrame:
    """A raw table: a numeric and a text feature, a text group, text labels, an id."""
    rng = np.random.default_rng(seed)
    region = rng.choice(REGIONS, n, p=list(shares))
    dept = np.where(
        region == "coast",
        rng.choice(["fishing", "trade", "law"], n, p=[0.6, 0.3, 0.1]),
        rng.choice(["farming", "trade", "law"], n, p=[0.5, 0.2, 0.3]),
    )
    years = rng.normal(10, 3, n) + 4 * (region == "plains")
    verdict = rng.choice(["accept", "reject", "wait"], n)
    return pd.DataFrame(
        {"badge": np.arange(n), "years": years.round(2), "dept": dept, "region": region,
         "verdict": verdict}
    )  # fmt: skip


def candidates(n: int = 200, seed: int = 1) -> pd.DataFrame:
    """Raw candidates without the label; one works in a department never seen in training."""
    frame = make_table(n, seed).drop(columns=["verdict"])
    frame.loc[3, "dept"] = "astronomy"
    return frame


def test_pipeline_proxy_on_raw_table_round_trips_and_filters(tmp_path: Path) -> None:
    table = make_table()
    pipe = make_pipeline(StandardScaler(), LogisticRegression(C=2.0))
    proxy = fit_table_proxy(table, COLUMNS, "qp-regression", model=pipe, random_state=0)
    assert isinstance(proxy.proxy.rule, LinearRule)  # the scaler folded into plain arrays
    assert proxy.groups == REGIONS  # real group names, not codes
    assert proxy.report["rows_per_group"] == {g: int((table.region == g).sum()) for g in REGIONS}
    assert not hasattr(pipe, "classes_")  # the user's pipeline is not fitted in place
    fitted = make_pipeline(StandardScaler(), LogisticRegression(C=2.0))
    X = proxy.encode(table)
    fitted.fit(X.to_numpy(), pd.Categorical(table.region, categories=REGIONS).codes)
    np.testing.assert_array_equal(proxy.proxy_values(table), fitted.predict(X.to_numpy()))

    path = save_proxy(proxy, tmp_path / "proxy.json")
    saved = json.loads(path.read_text())
    assert saved["table"]["encoder"]["categories"]["dept"] == [
        "farming",
        "fishing",
        "law",
        "trade",
    ]
    assert "region" not in saved["table"]["encoder"]["columns"]
    loaded = load_proxy(path)
    assert isinstance(loaded, TableProxy)
    assert loaded.columns == COLUMNS

    cands = candidates()
    with pytest.warns(UserWarning, match=r"categories the training data did not have \(dept: 1\)"):
        result = filter_table(loaded, cands, random_state=3)
    with pytest.warns(UserWarning, match="astronomy|categories"):
        again = filter_table(proxy, cands, random_state=3)
    assert result.rows.equals(again.rows)
    assert result.unknown_categories == {"dept": 1}
    # The admitted rows keep every original column, in order, plus their probability.
    assert list(result.rows.columns) == [*cands.columns, PROBABILITY_COLUMN]
    assert result.rows["badge"].tolist() == cands["badge"][result.mask].tolist()
    # The groups were in the candidates: reported by name, never used to admit.
    assert result.group_counts is not None
    assert set(result.group_counts) == set(REGIONS)
    seen = cands.region.value_counts()
    assert all(result.group_counts[g]["seen"] == seen[g] for g in REGIONS)
    assert sum(c["admitted"] for c in result.group_counts.values()) == result.mask.sum()
    blind = filter_table(loaded, cands.drop(columns=["region"]).iloc[4:], random_state=3)
    assert blind.group_counts is None
    desert = cands.iloc[4:].assign(region="desert")  # unknown groups: admitted, not reported
    with pytest.warns(UserWarning, match=r"not fitted on \(desert\)"):
        assert filter_table(loaded, desert, random_state=3).group_counts is None
    with pytest.raises(InvalidDataError, match="desert"):
        filter_table(loaded, desert, random_state=3, evaluate=["region"])


def test_tree_after_min_max_scaler_saves_as_plain_tree() -> None:
    table = make_table(seed=2)
    pipe = make_pipeline(MinMaxScaler(), DecisionTreeClassifier(max_depth=4, random_state=0))
    proxy = fit_table_proxy(table, COLUMNS, "qp-tree", model=pipe, random_state=0)
    assert isinstance(proxy.proxy.rule, TreeRule)
    assert proxy_to_dict(proxy)["rule"]["kind"] == "tree"


def test_a_classifier_without_json_form_works_in_memory_only(tmp_path: Path) -> None:
    forest = RandomForestClassifier(n_estimators=5, random_state=0)
    proxy = fit_table_proxy(make_table(), COLUMNS, "naive-tree", model=forest, random_state=0)
    assert isinstance(proxy.proxy.rule, EstimatorRule)
    assert proxy.report["saveable"] is False
    with pytest.warns(UserWarning, match="categories"):
        assert filter_table(proxy, candidates(), random_state=0).mask.any()
    with pytest.raises(InvalidDataError, match="RandomForestClassifier cannot be saved as JSON"):
        save_proxy(proxy, tmp_path / "p.json")
    assert not (tmp_path / "p.json").exists()
    with pytest.raises(InvalidParameterError, match="cannot be saved as JSON"):
        check_saveable_model(forest)
    check_saveable_model("lr")
    check_saveable_model(make_pipeline(MinMaxScaler(), DecisionTreeClassifier()))


def test_alpha_beta_refuses_a_model() -> None:
    with pytest.raises(InvalidParameterError, match="naive and QP proxies"):
        fit_table_proxy(make_table(), COLUMNS, "alpha-beta", model="lr")


def test_missing_values_error_or_impute() -> None:
    table = make_table()
    table.loc[[5, 9], "years"] = np.nan
    with pytest.raises(InvalidDataError, match=r"'years' has 2 missing value\(s\)"):
        fit_table_proxy(table, COLUMNS, "qp-tree", random_state=0)
    imputing = TableColumns(
        "verdict", ("region",), positive="accept", drop=("badge",), impute=True
    )
    proxy = fit_table_proxy(table, imputing, "qp-tree", random_state=0)
    cands = make_table(50, seed=4)
    cands.loc[0, "dept"] = np.nan
    assert len(filter_table(proxy, cands, random_state=0).mask) == 50  # filled as in training
    strict = fit_table_proxy(make_table(), COLUMNS, "qp-tree", random_state=0)
    with pytest.raises(InvalidDataError, match="'dept' has 1 missing"):
        filter_table(strict, cands, random_state=0)
    with pytest.raises(InvalidDataError, match="no column 'years'"):
        filter_table(strict, cands.drop(columns=["years"]), random_state=0)


def test_fit_warns_when_the_result_is_not_what_was_asked() -> None:
    table = make_table(300, shares=(0.65, 0.3, 0.05))  # ~15 rows of plains
    with pytest.warns(ResultWarning) as caught:
        fit_table_proxy(table, COLUMNS, "alpha-beta", alpha=0.02, random_state=0)
    messages = [str(w.message) for w in caught]
    assert any("group 'plains' has" in m and "(< 30)" in m for m in messages)
    # alpha 0.02 allows no split: the filter admits everyone alike, and says what would help
    assert any("admits every candidate" in m and "Raise --alpha" in m for m in messages)


@pytest.mark.parametrize(
    ("edit", "fragment"),
    [
        (lambda d: d["table"]["encoder"]["columns"].append("region"), "encoder's columns"),
        (lambda d: d["table"]["columns"].update(sensitive="region"), "column roles"),
        (lambda d: d["table"]["columns"].update(sensitive=["dept"]), "label or group column"),
        (lambda d: d["table"].update(encoder={"format": "x"}), "table encoder"),
        (lambda d: d["table"]["columns"].update(sensitive=["region", "x"]), "group columns"),
    ],
)
def test_tampered_table_section_is_refused(edit, fragment, tmp_path: Path) -> None:
    proxy = fit_table_proxy(make_table(), COLUMNS, "naive-regression", random_state=0)
    data = proxy_to_dict(proxy)
    edit(data)
    path = tmp_path / "p.json"
    path.write_text(json.dumps(data))
    with pytest.raises(CorruptFileError, match=fragment):
        load_proxy(path)


def test_dataset_proxy_stores_group_names() -> None:
    data = load_dataset("german", sensitive="sex")
    proxy = fit_proxy(data, "qp-tree", random_state=0)
    assert proxy.fitted_.groups == ("female", "male")
    names = np.asarray(data.group_names)[data.s]
    trace = BalancedFilter(proxy=proxy, random_state=0).fit(data.X, s=names).trace_
    assert "share_admitted_female" in trace.to_frame().columns


def test_several_group_columns_balance_intersecting_classes() -> None:
    columns = TableColumns("verdict", ("region", "dept"), positive="accept", drop=("badge",))
    proxy = fit_table_proxy(make_table(600), columns, "qp-tree", random_state=0)
    assert proxy.classes is not None
    assert proxy.classes.names == ("region", "dept")
    assert proxy.encoder.columns_ == ["years"]
    result = filter_table(proxy, make_table(120, seed=6), random_state=0)
    assert result.group_counts is not None
    assert (
        result.group_counts["region=coast"]["seen"]
        == (make_table(120, seed=6).region == "coast").sum()
    )
    assert {g for g in result.group_counts if g.startswith("dept=")} == {
        "dept=farming",
        "dept=fishing",
        "dept=law",
        "dept=trade",
    }
