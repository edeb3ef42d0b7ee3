"""DADI on a user's raw table: train_dadi, DadiModel save/load, warnings (tiny settings)."""

from __future__ import annotations

import json
import shutil
import warnings

import numpy as np
import pandas as pd
import pytest
import torch

from fairacq.data import TableColumns, prepare_table
from fairacq.exceptions import (
    CorruptFileError,
    InvalidDataError,
    InvalidParameterError,
    ResultWarning,
)
from fairacq.features import DADI, DadiModel, reveal_table, train_dadi

torch.set_num_threads(1)

TINY = {"n_pretrain_iter": 10, "n_train_iter": 3, "n_parallel": 4, "batch_size": 8}
COLUMNS = TableColumns("result", ("ethnicity",), positive="pass", drop=("ref",))


def _table(n: int = 160, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    hours = rng.integers(0, 40, n)
    course = rng.choice(["maths", "art", "law"], n)
    passed = hours / 40 + (course == "maths") * 0.3 + rng.normal(0, 0.2, n) > 0.5
    return pd.DataFrame(
        {
            "ref": np.arange(n) + 1000,
            "hours": hours,
            "course": course,
            "ethnicity": rng.choice(["A", "B"], n),
            "result": np.where(passed, "pass", rng.choice(["fail", "resit"], n)),
        }
    )


def _quiet_train(data, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ResultWarning)
        return train_dadi(data, **TINY, **kwargs)


@pytest.fixture(scope="module")
def run():
    with pytest.warns(ResultWarning) as record:
        fitted = train_dadi(_table(), columns=COLUMNS, include_sensitive=True, **TINY)
    assert [str(w.message) for w in record] == list(fitted.warnings)
    assert any(w.startswith("exploration not decayed") for w in fitted.warnings)
    return fitted


def test_raw_columns_are_the_actions(run):
    assert list(run.agent.feature_groups_) == ["hours", "course", "ethnicity"]
    assert run.agent.feature_groups_["course"] == ["course=art", "course=law", "course=maths"]
    assert run.encoder.columns_ == ["hours", "course", "ethnicity"]
    assert run.columns == COLUMNS
    assert run.include_sensitive
    summary = run.summary()
    assert summary["features"] == ["hours", "course", "ethnicity"]
    assert summary["warnings"] == list(run.warnings)
    assert any(w.startswith("exploration not decayed") for w in run.agent.warnings_)


def test_encoder_fitted_on_the_training_rows_only():
    table = _table()
    # a category only one test row has: the encoder (training rows) does not know it
    from fairacq.data import split_dadi

    split = split_dadi(prepare_table(table, COLUMNS).dataset, random_state=0)
    table.loc[int(split.indices["test"][0]), "course"] = "dance"
    fitted = _quiet_train(table, columns=COLUMNS)
    assert "dance" not in fitted.encoder.categories_["course"]
    assert any("1 value(s) of the test rows" in w for w in fitted.warnings)
    assert "ethnicity" not in fitted.agent.feature_groups_  # include_sensitive=False


def test_save_load_acquire_on_raw_people(run, tmp_path):
    run.model.save(tmp_path / "m")
    model = DadiModel.load(tmp_path / "m")
    assert model.encoder.to_dict() == run.encoder.to_dict()
    assert model.columns == COLUMNS
    assert model.include_sensitive
    assert model.agent.warnings_ == run.agent.warnings_
    people = _table(8, seed=3).drop(columns=["result"])
    out = reveal_table(model, people, id_column="ref")
    assert out["ref"].tolist() == people["ref"].tolist()
    encoded = run.encoder.transform(people[["hours", "course", "ethnicity"]])
    expected = run.agent.acquire_many(encoded)
    assert out["revealed"].tolist() == [",".join(a.features) for a in expected]
    for i in range(len(people)):  # the batch equals one episode per person
        single = run.agent.acquire(encoded.iloc[i])
        assert single.features == expected[i].features
        assert single.proba == pytest.approx(expected[i].proba)


def test_load_refuses_edited_or_foreign_files(run, tmp_path):
    run.model.save(tmp_path / "m")
    for name, edit in (
        ("encoder.json", lambda d: d["categories"]["course"].append("dance")),
        ("columns.json", lambda d: d["columns"].update(label="other")),
    ):
        copy = tmp_path / f"edited-{name}"
        shutil.copytree(tmp_path / "m", copy)
        data = json.loads((copy / name).read_text())
        edit(data)
        (copy / name).write_text(json.dumps(data))
        with pytest.raises(CorruptFileError, match="checksum differs"):
            DadiModel.load(copy)
    # an encoder consistent with its checksum but not with the agent
    copy = tmp_path / "foreign"
    shutil.copytree(tmp_path / "m", copy)
    config = json.loads((copy / "config.json").read_text())
    encoder = json.loads((copy / "encoder.json").read_text())
    encoder["categories"]["course"] = ["art", "law"]
    (copy / "encoder.json").write_text(json.dumps(encoder))
    from fairacq._io import sha256_file

    config["files"]["encoder.json"] = sha256_file(copy / "encoder.json")
    (copy / "config.json").write_text(json.dumps(config))
    with pytest.raises(CorruptFileError, match="checksum differs"):
        DadiModel.load(copy)  # the folder's manifest refuses the edit first
    from fairacq._artefact import write_manifest

    write_manifest(copy, format="dadi-model/1")  # an edit made consistent throughout
    with pytest.raises(CorruptFileError, match="does not describe the agent"):
        DadiModel.load(copy)


def test_a_bare_dadi_save_loads_without_an_encoder(run, tmp_path):
    run.agent.save(tmp_path / "bare")
    model = DadiModel.load(tmp_path / "bare")
    assert model.encoder is None
    assert model.columns is None
    with pytest.raises(InvalidParameterError, match=r"plain \.json"):
        run.agent.save(tmp_path / "x", extra_files={"../up.json": {}})


def test_prepared_table_keeps_its_encoder():
    prepared = prepare_table(_table(), COLUMNS)
    fitted = _quiet_train(prepared)
    assert fitted.encoder is prepared.encoder
    assert fitted.columns == COLUMNS
    assert list(fitted.agent.feature_groups_) == ["hours", "course"]


def test_one_class_on_identical_rows_is_reported():
    n = 96
    rng = np.random.default_rng(1)
    flat = pd.DataFrame(
        {
            "hours": np.full(n, 5),
            "course": ["art"] * n,
            "ethnicity": rng.permutation(["A", "B"] * (n // 2)),
            "result": rng.permutation(["pass", "fail", "resit"] * (n // 3)),
        }
    )
    cols = TableColumns("result", ("ethnicity",), positive="pass")
    with pytest.warns(ResultWarning) as record:
        fitted = train_dadi(flat, columns=cols, **TINY)
    messages = [str(w.message) for w in record]
    one_class = [m for m in messages if m.startswith("one-class classifier:")]
    assert len(one_class) == 1
    assert "test rows" in one_class[0]
    assert fitted.test_disparity == 0.0
    assert any(w.startswith("one-class classifier:") for w in fitted.agent.warnings_)


def test_callbacks_reach_the_fit():
    seen = []

    def progress(recorder):
        seen.append(recorder.last().get("phase"))
        return True

    _quiet_train(_table(), columns=COLUMNS, callbacks=[progress])
    assert seen.count("joint") == TINY["n_train_iter"]


def test_bad_table_inputs():
    with pytest.raises(InvalidParameterError, match="columns=TableColumns"):
        train_dadi(_table())
    with pytest.raises(InvalidParameterError, match="raw DataFrame only"):
        train_dadi(prepare_table(_table(), COLUMNS), include_sensitive=True)
    with pytest.raises(InvalidDataError, match="not 0/1"):
        train_dadi(_table(), columns=TableColumns("result", ("ethnicity",)))
    clash = _table().assign(**{"sensitive:ethnicity": "x"})
    with pytest.raises(InvalidDataError, match="sensitive:ethnicity"):
        train_dadi(clash, columns=COLUMNS, include_sensitive=True)


def test_dadi_fit_records_warnings_without_emitting():
    from fairacq.data import load_toy

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        model = DADI(random_state=0, **TINY).fit(load_toy(n=120))
    assert any("epsilon is still" in w for w in model.warnings_)


def test_impute_fills_gaps_in_training_and_in_people():
    table = _table()
    table.loc[[3, 50], "hours"] = np.nan
    table.loc[7, "course"] = None
    cols = TableColumns("result", ("ethnicity",), positive="pass", drop=("ref",), impute=True)
    fitted = _quiet_train(table, columns=cols)
    assert fitted.encoder.fill_values_["course"] in {"art", "law", "maths"}
    people = _table(3, seed=9).drop(columns=["result"])
    people.loc[0, "hours"] = np.nan
    out = reveal_table(fitted.model, people)
    assert out["hours"].isna().tolist() == [True, False, False]  # the people's values, kept
    assert out["n_revealed"].notna().all()
