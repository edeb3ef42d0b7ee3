"""Where ``fairacq acquire``'s result is not to be trusted: the warnings it prints and keeps.

A model that predicts one class for every validation or test row has fairness gaps of zero
by construction; such a model is named, before and after buying, and never called fair.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from fairacq.cli.acquire._acquire_words import stop_words

__all__ = ["LABELS", "one_class_models", "result_warnings"]

#: Axis labels of the metrics a user is likely to pick.
LABELS = {
    "demographic_parity_diff_abs": "demographic parity gap",
    "equalized_odds_diff": "equalised odds gap",
    "equal_opportunity_diff": "equal opportunity gap",
    "accuracy": "accuracy",
}


def one_class_models(acquirer: Any, inputs: Any) -> dict[str, str]:
    """Return the warning of each model (``"initial"``, ``"final"``) that predicts one class.

    The initial model is trained on the rows you have, the final one on those plus the rows
    bought; each is checked on the validation rows, then on the test rows. Post-thresholds'
    final model is checked with its group thresholds; its initial model is not (the
    thresholds it was measured with are not kept).
    """
    initial = getattr(acquirer, "initial_model_", None)
    who = {
        "initial": "the model trained on your rows",
        "final": "the model trained on your rows and the rows bought",
    }
    if hasattr(acquirer, "thresholds_"):
        models = {"final": acquirer.model_}
        who["final"] = "the model this run ends with (its group thresholds applied)"
    elif initial is None or initial is acquirer.model_:
        models = {"initial": acquirer.model_}  # nothing was learned: one model, worded once
    else:
        models = {"initial": initial, "final": acquirer.model_}
    out = {}
    for stage, model in models.items():
        problem = _first_problem(acquirer, model, inputs)
        if problem is not None:
            out[stage] = who[stage] + problem.removeprefix("the model")
    return out


def _first_problem(acquirer: Any, model: Any, inputs: Any) -> str | None:
    from fairacq.models import one_class_problem, predict_scores

    for where, data in (("validation rows", inputs.validation), ("test rows", inputs.test)):
        if data is None:
            continue
        if model is acquirer.model_ and hasattr(acquirer, "thresholds_"):
            y_pred = np.asarray(acquirer.thresholds_.predict(data, random_state=0))
        else:
            y_pred = (predict_scores(model, data.to_numpy()) >= 0.5).astype(np.int64)
        problem = one_class_problem(y_pred, where=where)
        if problem is not None:
            return problem
    return None


def result_warnings(acquirer: Any, inputs: Any) -> list[str]:
    """Return every warning on the run's result, one-class models first."""
    prefix = "test_" if inputs.test is not None else "val_"
    one_class = one_class_models(acquirer, inputs)
    frame = acquirer.trace_.to_frame()
    metric = acquirer.metric
    final = float(frame[f"val_{metric}"].iloc[-1])
    name = LABELS.get(metric, metric)
    out = [*one_class.values(), *getattr(acquirer, "threshold_notes_", [])]
    if len(acquirer.acquired_) == 0 and acquirer.stop_reason_ == "tau":
        out = [_nothing_bought(acquirer, frame, prefix, name, out)]
    elif final > acquirer.tau and not hasattr(acquirer, "tol"):
        # post-thresholds closes the validation gap by construction (within its tol)
        out.append(
            f"the fairness target was not reached: the validation {name} ends at "
            f"{final:.4f}, above the fairness tolerance (--tau) of {acquirer.tau:g}; the run "
            f"stopped because {stop_words(acquirer.stop_reason_)}. A larger --budget or "
            "another --method may reach it."
        )
    if prefix == "test_" and len(acquirer.acquired_) and "final" not in one_class:
        out += _test_grew(frame, metric, name)
    return out


def _nothing_bought(
    acquirer: Any, frame: Any, prefix: str, name: str, one_class: list[str]
) -> str:
    """Why nothing was bought: a one-class model's gap, or a gap already small enough."""
    if one_class:  # its zero gap met the tolerance: say so, never call it fair
        return f"nothing was bought and the run stopped at once: {one_class[0]}"
    final = float(frame[f"val_{acquirer.metric}"].iloc[-1])
    on_test = float(frame[prefix + acquirer.metric].iloc[-1])
    test = f"; on the test rows it is {on_test:.4f}" if prefix == "test_" else ""
    return (
        f"nothing was bought: the validation {name} ({final:.4f}) is already within the "
        f"fairness tolerance (--tau) of {acquirer.tau:g}{test}. Lower --tau, or give more "
        "validation rows so that the gap is measured reliably."
    )


def _test_grew(frame: Any, metric: str, name: str) -> list[str]:
    first, last = (float(frame["test_" + metric].iloc[i]) for i in (0, -1))
    if last <= first:
        return []
    n_val = int(frame["n_val"].iloc[0]) if "n_val" in frame else None
    rows = f" ({n_val} rows)" if n_val else ""
    return [
        f"on the test rows the {name} grew from {first:.4f} to {last:.4f} while the "
        f"validation rows{rows} guided the choice: they may be too few to measure the "
        "gap reliably. Compare with the Random baseline and give more validation rows."
    ]
