"""An InfluenceResult is a Result: one row per training row, and a saved folder read back."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from fairacq import Result
from fairacq.data import load_toy
from fairacq.models import make_learner
from fairacq.valuation import InfluenceResult, fairness_improvement, fairness_influence


@pytest.fixture(scope="module")
def result() -> InfluenceResult:
    train, val = load_toy(120, random_state=0), load_toy(80, random_state=1)
    X = train.to_numpy()
    model = make_learner("lr", random_state=0).fit(X, train.y)
    return fairness_influence(
        model, X, train.y, val.to_numpy(), val.y, val.s, privileged=0, with_loss=True
    )


def test_to_frame_has_one_row_per_training_row(result):
    frame = result.to_frame()
    assert isinstance(result, Result)
    assert frame.index.name == "row"
    assert frame.index.tolist() == list(range(120))
    assert frame.columns.tolist() == ["value", "improvement", "loss_value"]
    np.testing.assert_array_equal(frame["value"], result.values)
    np.testing.assert_array_equal(frame["improvement"], fairness_improvement(result))
    assert result.loss_values is not None
    np.testing.assert_array_equal(frame["loss_value"], result.loss_values)


def test_without_the_loss_there_is_no_loss_column(result):
    plain = dataclasses.replace(result, loss_values=None)
    assert "loss_value" not in plain.to_frame().columns


def test_a_saved_influence_comes_back_field_for_field(result, tmp_path):
    back = InfluenceResult.load(result.save(tmp_path / "i"))
    for field in dataclasses.fields(InfluenceResult):
        mine, loaded = getattr(result, field.name), getattr(back, field.name)
        if isinstance(mine, np.ndarray):
            assert loaded.dtype == mine.dtype
            np.testing.assert_array_equal(loaded, mine)
        else:
            assert loaded == mine, field.name
    assert back.pair == (1, 0)  # a tuple again, not a list
    plain = InfluenceResult.load(
        dataclasses.replace(result, loss_values=None).save(tmp_path / "p")
    )
    assert plain.loss_values is None


def test_the_notebook_view_names_the_solver(result):
    view = result._repr_html_()
    assert "<b>InfluenceResult</b>: demographic_parity surrogate" in view
    assert "exact solver; damping 0 (first 20 shown)" in view
    assert view.count("<tr") == 22  # two header rows (columns, then the index name) and 20
    iterative = dataclasses.replace(result, solver="cg", iterations=12, residual=3.2e-7)
    assert "cg solver, 12 iterations, residual 3.2e-07" in iterative._caption()
