"""PSL data folders: write_psl_data round-trips through read_psl_data; clear errors."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from fairacq.data.synthetic import make_paper_review
from fairacq.exceptions import CorruptFileError, InvalidDataError, InvalidParameterError
from fairacq.relational import (
    RelationalData,
    parse_rules,
    read_psl_data,
    rule_arities,
    run_pipeline,
    write_psl_data,
)


def _canonical(frame: pd.DataFrame) -> pd.DataFrame:
    """Arguments as strings named a0.., the value as float; rows sorted."""
    args = [c for c in frame.columns if c != "value"]
    out = frame[args].astype(str).set_axis([f"a{j}" for j in range(len(args))], axis=1)
    if "value" in frame.columns:
        out["value"] = frame["value"].to_numpy(dtype=np.float64)
    return out.sort_values(list(out.columns)).reset_index(drop=True)


def _assert_same_atoms(a: RelationalData, b: RelationalData) -> None:
    for role in ("observations", "targets", "truth"):
        left, right = getattr(a, role), getattr(b, role)
        assert sorted(left) == sorted(right), role
        for name in left:
            pd.testing.assert_frame_equal(_canonical(left[name]), _canonical(right[name]))
    for group in ("protected", "unprotected"):
        pd.testing.assert_frame_equal(_canonical(getattr(a, group)), _canonical(getattr(b, group)))


def _soft_data() -> RelationalData:
    users = ["ann", "bob", "cy", "dee"]
    return RelationalData(
        observations={
            "risky": pd.DataFrame({"user": users, "value": [1.0, 0.25, 1 / 3, 0.0]}),
            "knows": pd.DataFrame({"a": ["ann", "bob"], "b": ["cy", "dee"], "value": 1.0}),
        },
        targets={"recid": pd.DataFrame({"user": users})},
        truth={"recid": pd.DataFrame({"user": users, "value": [0.9, 0.1, 0.7, 0.0]})},
        protected=pd.DataFrame({"user": users[:2]}),
        unprotected=pd.DataFrame({"user": users[2:]}),
        metadata={"fairness_predicate": "recid"},
    )


def test_paper_review_round_trip(tmp_path):
    data = make_paper_review(n_papers=20, n_reviewers=6, random_state=3)
    files = write_psl_data(data, tmp_path, protected="protectedPaper")
    assert files["positiveSummary_targets"] == tmp_path / "positiveSummary_targets.txt"
    assert "protectedPaper_obs" in files
    back = read_psl_data(tmp_path, target="positiveSummary", protected="protectedPaper")
    assert back.fairness_predicate == "positiveSummary"
    observed = dict(back.observations)
    groups = observed.pop("protectedPaper")
    assert groups["value"].sum() == len(data.protected)
    _assert_same_atoms(
        data,
        RelationalData(observed, back.targets, back.truth, back.protected, back.unprotected),
    )


def test_soft_values_and_two_argument_predicates_round_trip_exactly(tmp_path):
    data = _soft_data()
    write_psl_data(data, tmp_path, protected="grp")
    assert (tmp_path / "risky_obs.txt").read_text().splitlines()[2] == "cy\t0.3333333333333333"
    assert (tmp_path / "recid_targets.txt").read_text() == "ann\nbob\ncy\ndee\n"
    back = read_psl_data(tmp_path, protected="grp", arities={"risky": 1, "knows": 2})
    observed = {k: v for k, v in back.observations.items() if k != "grp"}
    _assert_same_atoms(
        data, RelationalData(observed, back.targets, back.truth, back.protected, back.unprotected)
    )
    # Rewriting the same data into the same folder is allowed (files replaced).
    write_psl_data(data, tmp_path, protected="grp")


def test_round_trip_then_inference_gives_the_same_metrics(tmp_path):
    data = make_paper_review(n_papers=60, n_reviewers=20, n_institutes=10, random_state=4)
    write_psl_data(data, tmp_path, protected="protectedPaper")
    back = read_psl_data(tmp_path, target="positiveSummary", protected="protectedPaper")
    rules = [
        "5: acceptable(P) & reviews(R, P) -> positiveReviews(R, P) ^2",
        "5: positiveReviews(R, P) -> positiveSummary(P) ^2",
        "5: !positiveSummary(P) ^2",
    ]
    a = run_pipeline(rules, None, data, fairness="rd<=0.1")
    b = run_pipeline(rules, None, back, fairness="rd<=0.1")
    assert a.metrics == pytest.approx(b.metrics, abs=1e-6)


def test_writer_refuses_what_the_layout_cannot_carry(tmp_path):
    data = _soft_data()
    bad = RelationalData(
        observations={"risky": pd.DataFrame({"user": ["a\tb"], "value": [1.0]})},
        targets=data.targets,
        truth={},
        protected=data.protected,
        unprotected=data.unprotected,
    )
    with pytest.raises(InvalidDataError, match="tab-separated layout cannot carry"):
        write_psl_data(bad, tmp_path / "tab")
    with pytest.raises(InvalidDataError, match="already a predicate"):
        write_psl_data(data, tmp_path / "clash", protected="risky")
    (tmp_path / "file").write_text("x")
    with pytest.raises(InvalidParameterError, match="is a file"):
        write_psl_data(data, tmp_path / "file")
    stale = tmp_path / "stale"
    stale.mkdir()
    (stale / "old_obs.txt").write_text("x\n")
    with pytest.raises(InvalidParameterError, match=r"old_obs\.txt"):
        write_psl_data(data, stale)


def _folder(tmp_path, risky: str, truth: str = "u0\t1\nu1\t0\n"):
    (tmp_path / "risky_obs.txt").write_text(risky)
    (tmp_path / "recid_targets.txt").write_text("u0\nu1\n")
    (tmp_path / "recid_truth.txt").write_text(truth)
    return tmp_path


RULES = parse_rules("5: risky(U) -> recid(U) ^2\n5: !recid(U) ^2")


def test_the_rules_arities_read_a_last_column_as_the_truth_value(tmp_path):
    # A repeated atom makes the value column look like an argument when guessing...
    folder = _folder(tmp_path, "u0\t1\nu0\t0.5\nu1\t0\n")
    guessed = read_psl_data(folder)
    assert list(guessed.observations["risky"].columns) == ["a0", "a1", "value"]
    with pytest.raises(InvalidDataError, match="probably its truth value"):
        run_pipeline(RULES, None, guessed)
    # ...with the rules' arities it is the value, and the real problem is named.
    with pytest.raises(InvalidDataError, match="duplicated atoms"):
        read_psl_data(folder, arities=rule_arities(RULES))


@pytest.mark.parametrize(
    ("risky", "fragment"),
    [
        ("u0\t1\t1\nu1\t0\t1\n", "3 columns, but 'risky' takes 1 argument"),
        ("u0\t5\nu1\t0\n", "line 1 has '5' in column 2, the truth value of 'risky'"),
        ("user\tvalue\nu0\t1\n", "no header line"),
    ],
)
def test_bad_value_columns_name_the_file_and_line(tmp_path, risky, fragment):
    folder = _folder(tmp_path, risky)
    with pytest.raises(CorruptFileError, match=fragment) as err:
        read_psl_data(folder, arities=rule_arities(RULES))
    assert "risky_obs.txt" in str(err.value)


def test_trailing_tabs_are_not_a_column(tmp_path):
    folder = _folder(tmp_path, "u0\t1\t\nu1\t0.5\t\n")
    data = read_psl_data(folder, arities=rule_arities(RULES))
    assert data.observations["risky"]["value"].tolist() == [1.0, 0.5]


def test_missing_folder_file_and_task(tmp_path):
    with pytest.raises(CorruptFileError, match="does not exist"):
        read_psl_data(tmp_path / "nope")
    (tmp_path / "f.txt").write_text("x")
    with pytest.raises(CorruptFileError, match="is a file, not a folder"):
        read_psl_data(tmp_path / "f.txt")
    (tmp_path / "ok").mkdir()
    folder = _folder(tmp_path / "ok", "u0\t1\n")
    assert read_psl_data(folder, task="rating").metadata["task"] == "rating"
    with pytest.raises(InvalidParameterError, match="task must be"):
        read_psl_data(folder, task="ranking")  # type: ignore[arg-type]
