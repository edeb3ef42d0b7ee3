"""Run ``fairacq acquire``'s method (and its Random baseline) and write what a user acts on."""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

from fairacq.cli.acquire._acquire_inputs import AcquireInputs, parse_size
from fairacq.cli.acquire._acquire_warnings import LABELS, result_warnings
from fairacq.cli.acquire._acquire_words import spending, spending_counts, stop_words
from fairacq.cli.shared._errors import err_console
from fairacq.exceptions import ResultWarning

__all__ = ["checkpointing", "make_acquirer_for", "run_baseline", "run_method", "write_outputs"]


def make_acquirer_for(
    method: str, budget: str, batch: str, inputs: AcquireInputs, params: dict[str, Any]
) -> Any:
    """Build ``method`` with the budget and batch read against the pool's size or costs."""
    from fairacq.acquisition import make_acquirer

    total = float(inputs.costs.sum()) if inputs.costs is not None else float(len(inputs.pool))
    n_budget = parse_size(budget, total, "--budget")
    # The command's options form one set for every method; each takes those it declares
    # (--alpha is DataSift's, --tol post-thresholds'), since make_acquirer refuses others.
    takes = make_acquirer(method).get_params(deep=False)
    return make_acquirer(
        method,
        budget=n_budget,
        batch_size=parse_size(batch, n_budget, "--batch"),
        **{k: v for k, v in params.items() if k in takes},
    )


def checkpointing(out: Path, every: int, resume: bool, stamp: dict[str, Any]) -> dict[str, Any]:
    """Return the ``callbacks`` and ``continue_from`` of a run checkpointing into ``out``.

    Every checkpoint records ``stamp`` (:func:`~fairacq.cli.acquire._acquire_resume.run_stamp`);
    resuming from one written for other inputs or options is refused before any work.
    Resuming adds ``resumed``, the cost the checkpoint had reached (for the progress bar:
    done before this run; :func:`run_method` takes it out).
    """
    from fairacq import CheckpointCallback
    from fairacq.cli.acquire._acquire_resume import STAMP_KEY, check_stamp

    path = out / "checkpoint"
    kwargs: dict[str, Any] = {}
    if every:
        kwargs["callbacks"] = [CheckpointCallback(path, every=every, meta={STAMP_KEY: stamp})]
    if resume:
        if path.with_suffix(".json").exists():
            from fairacq import Trace

            trace = Trace.load(path)  # a damaged checkpoint: refused in one line, before work
            check_stamp(trace.meta, stamp, path)
            kwargs["continue_from"] = path
            kwargs["resumed"] = float(trace.final("cost")) if len(trace) else 0.0
        else:
            err_console.print(f"note: no checkpoint in {out}; starting afresh", markup=False)
    return kwargs


def run_method(
    acquirer: Any,
    method: str,
    inputs: AcquireInputs,
    chunks: Any,
    resuming: dict[str, Any],
) -> list[str]:
    """Run the acquirer; return the warnings it raised (each printed as a note).

    The bar of a run resumed from a checkpoint starts at the checkpoint's cost, marked as done
    before this run.
    """
    from fairacq.cli.shared._progress import progress, run_callback

    unit = "cost units" if inputs.costs is not None else "rows"
    callbacks = list(resuming.pop("callbacks", []))
    resumed = float(resuming.pop("resumed", 0.0))
    with (
        progress(method, float(acquirer.budget), unit) as bar,
        warnings.catch_warnings(record=True) as caught,
    ):
        bar.update(resumed, resumed=resumed)
        warnings.simplefilter("always")
        acquirer.fit(
            inputs.train,
            inputs.pool,
            validation=inputs.validation,
            test=inputs.test,
            costs=inputs.costs,
            executor=chunks,
            callbacks=[*callbacks, run_callback(bar, column="cost")],
            **resuming,
        )
    if "continue_from" in resuming:  # only once the checkpoint was read: an error is one line
        err_console.print(f"note: going on from {resuming['continue_from']}", markup=False)
    # a ResultWarning is the result's: result_warnings prints it as a warning and keeps it
    told = [w for w in caught if not issubclass(w.category, ResultWarning)]
    notes = list(dict.fromkeys(str(w.message) for w in told))
    for note in notes:
        err_console.print(f"note: {note}", markup=False)
    return notes


def run_baseline(acquirer: Any, inputs: AcquireInputs, chunks: Any) -> dict[str, Any]:
    """Random on the same data, seed, budget and batch (nothing when the method is Random)."""
    from fairacq.acquisition import make_acquirer
    from fairacq.cli.shared._progress import progress, run_callback

    if acquirer.method_name == "random":
        return {}
    # Random takes the method's shared parameters (budget, batch, learner, seed, ...) only.
    takes = make_acquirer("random").get_params(deep=False)
    params = acquirer.get_params(deep=False)
    random = make_acquirer("random", **{k: v for k, v in params.items() if k in takes})
    with (
        progress("random baseline", float(random.budget), "rows") as bar,
        warnings.catch_warnings(),
    ):
        warnings.simplefilter("ignore")
        trace = random.fit(
            inputs.train,
            inputs.pool,
            validation=inputs.validation,
            test=inputs.test,
            costs=inputs.costs,
            executor=chunks,
            callbacks=[run_callback(bar, column="cost")],
        ).trace_
    return {"random": trace}


def _write_thresholds(acquirer: Any, inputs: AcquireInputs, out: Path) -> str:
    """Write post-thresholds' group rules to ``out/thresholds.json``; return a note on it."""
    from fairacq._io import write_json
    from fairacq.models import GroupThresholds, describe_thresholds

    post = acquirer.thresholds_
    rules = describe_thresholds(post, inputs.train.group_names)
    placed = "pool" if isinstance(post.model, GroupThresholds) else "validation"
    write_json(
        out / "thresholds.json",
        {
            "metric": acquirer.metric,
            "tol": acquirer.tol,
            "placement": placed,
            "rule": "a row of the group with score p (P(y=1) of the model this run trained: "
            "its training split plus acquired.parquet) is predicted 1 with probability "
            "p0 [p op0 threshold0] + p1 [p op1 threshold1]; with p_ignore > 0 that share of "
            "rows gets prediction_constant instead"
            + ("; here p0 = 1: predicted 1 when p > threshold0" if placed == "pool" else ""),
            "groups": rules,
        },
    )
    where = (
        "each group's rate chosen on the validation rows, its threshold placed at that "
        "quantile of the pool's scores (one threshold per group, no coin)"
        if placed == "pool"
        else "fitted on the validation rows (a coin between two thresholds per group)"
    )
    return (
        f"thresholds.json holds the group thresholds ({where}) for the model this run "
        "trained (its training split plus acquired.parquet); a model trained otherwise "
        "needs its own."
    )


def _counts(trace: Any) -> dict[str, int]:
    """Return the final rows_paid, labels_seen and rows_evaluated (none from older traces)."""
    last = trace.to_frame().iloc[-1]
    keys = ("rows_paid", "labels_seen", "rows_evaluated")
    if any(k not in last or last[k] != last[k] for k in keys):  # missing or NaN
        return {}
    return {k: int(last[k]) for k in keys}


def write_outputs(
    acquirer: Any,
    inputs: AcquireInputs,
    out: Path,
    method: str,
    compare: dict[str, Any],
    notes: list[str],
) -> dict[str, Any]:
    """Write acquired.parquet, the encoder, the order, traces, the figure and the summary."""
    from fairacq.acquisition import acquired_rows
    from fairacq.data import write_table

    rows = acquired_rows(acquirer, inputs.pool, frame=inputs.pool_frame)
    write_table(rows, out / "acquired.parquet")
    if inputs.encoder is not None:
        from fairacq._io import write_json

        write_json(out / "encoder.json", inputs.encoder.to_dict())
    if hasattr(acquirer, "thresholds_"):
        notes = [*notes, _write_thresholds(acquirer, inputs, out)]
    problems = result_warnings(acquirer, inputs)
    for problem in problems:
        err_console.print(f"warning: {problem}", markup=False)
    paid = spending_counts(rows, _counts(acquirer.trace_))
    paid["spending"] = spending(
        paid,
        cost_name=inputs.cost_name,
        postpones=hasattr(acquirer, "postponed_"),
        cost_model=acquirer.cost_model,
    )
    report = _write_report(acquirer, inputs, out, method, compare, notes, problems, paid)
    return {
        "rows": report.rows,
        "stop_reason": acquirer.stop_reason_,
        "stopped_because": stop_words(acquirer.stop_reason_),
        "n_acquired": len(rows),
        **paid,
        "warnings": problems,
        **({"thresholds": "thresholds.json"} if hasattr(acquirer, "thresholds_") else {}),
    }


def _write_report(
    acquirer: Any,
    inputs: AcquireInputs,
    out: Path,
    method: str,
    compare: dict[str, Any],
    notes: list[str],
    problems: list[str],
    paid: dict[str, Any],
) -> Any:
    """Write the traces, fairness.png and summary.md/json of the run."""
    from fairacq.reporting import write_run

    prefix = "test_" if inputs.test is not None else "val_"
    metric = acquirer.metric
    split = "test" if prefix == "test_" else "validation"
    return write_run(
        acquirer.trace_,
        out,
        method=method,
        dataset=str(acquirer.trace_.meta.get("dataset", inputs.train.name)),
        metric=f"{prefix}{metric}",
        sensitive=",".join(inputs.train.sensitive_attrs),
        metrics=[f"{prefix}accuracy"],
        order=acquirer.acquired_,
        experiment=f"acquire-{method}",
        compare=compare,
        panels=[f"{prefix}accuracy"],
        labels={
            f"{prefix}{metric}": f"{LABELS.get(metric, metric)} ({split}; lower is fairer)",
            f"{prefix}accuracy": f"accuracy ({split}; higher is better)",
        },
        xlabel="cost acquired" if inputs.costs is not None else "rows acquired",
        warnings=problems,
        notes=[
            paid["spending"] + " Every row paid for is in acquired.parquet (column "
            "trained_on; cost_paid sums to the cost); acquisition_order.csv lists the rows "
            "trained on.",
            f"Stopped because {stop_words(acquirer.stop_reason_)}; "
            f"{acquirer.n_evaluations_} batches tried.",
            *(f"Note: {n}" for n in notes),
        ],
        meta={
            "n_acquired": paid["rows_paid"],
            "stopped_because": stop_words(acquirer.stop_reason_),
            "cost_model": acquirer.get_params().get("cost_model", "every row whose label is read"),
            **paid,
        },
    )
