"""PSL data directories in, inferred atoms and learned rules out."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from fairacq.exceptions import CorruptFileError, InvalidDataError, UnknownNameError
from fairacq.relational import (
    can_evaluate,
    load_named_relational,
    read_psl_data,
    rule_weights,
    run_pipeline,
    write_inference,
)

RULES = "5: risky(U) -> recid(U) ^2\n5: !recid(U) ^2\n"


@pytest.fixture
def psl_dir(tmp_path):
    users = [f"u{i}" for i in range(6)]
    tables = {
        "risky_obs": [1, 1, 0.5, 0, 0, 1],
        "grp_obs": [1, 1, 1, 0, 0, 0],
        "recid_truth": [1, 0, 1, 0, 0, 1],
    }
    for name, values in tables.items():
        (tmp_path / f"{name}.txt").write_text(
            "".join(f"{u}\t{v}\n" for u, v in zip(users, values, strict=True))
        )
    (tmp_path / "recid_targets.txt").write_text("".join(f"{u}\n" for u in users))
    return tmp_path


def test_read_groups_from_an_observed_predicate(psl_dir):
    data = read_psl_data(psl_dir, protected="grp")
    assert data.fairness_predicate == "recid"
    assert len(data.protected) == 3
    assert len(data.unprotected) == 3
    assert can_evaluate(data)
    plain = read_psl_data(psl_dir)
    assert len(plain.protected) == 0
    assert not can_evaluate(plain)


def test_read_errors(psl_dir, tmp_path_factory):
    with pytest.raises(InvalidDataError, match="not an observed predicate"):
        read_psl_data(psl_dir, protected="student")
    with pytest.raises(InvalidDataError, match="not a target predicate"):
        read_psl_data(psl_dir, target="risky")
    with pytest.raises(CorruptFileError):
        read_psl_data(tmp_path_factory.mktemp("empty"))


@pytest.mark.parametrize("fmt", ["parquet", "csv"])
def test_write_inference(psl_dir, tmp_path, fmt):
    data = read_psl_data(psl_dir, protected="grp")
    result = run_pipeline(RULES, None, data, fairness=["rd<=0.1"], evaluate=True)
    summary = write_inference(result, tmp_path / "out", fmt=fmt)
    atoms = tmp_path / "out" / f"atoms.{fmt}"
    frame = pd.read_parquet(atoms) if fmt == "parquet" else pd.read_csv(atoms)
    assert len(frame) == 6
    assert summary["atoms"] == str(atoms)
    assert json.loads((tmp_path / "out" / "metrics.json").read_text()) == json.loads(
        json.dumps(summary)
    )
    assert len((tmp_path / "out" / "model.psl").read_text().splitlines()) == 2


def test_rule_weights_and_names():
    rules = ["2.5: a(X) -> b(X) ^2", "a(X) -> c(X) .", "x: not a weight"]
    assert rule_weights(rules) == [{"rule": rules[0], "weight": 2.5}]
    with pytest.raises(UnknownNameError, match="Did you mean 'compas'"):
        load_named_relational("compass", 0, "train")
