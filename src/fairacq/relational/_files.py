"""Output files of ``fairacq relational``: inferred atoms and learned rules.

:func:`write_inference` writes what :func:`run_pipeline` inferred and :func:`write_a3sl` what
:class:`FairA3SL` learned; every file is written atomically. Both write ``summary.json``, the
summary the command prints with ``--json`` (warnings included), and ``metrics.json``, the
same content under the name earlier versions used. PSL data folders are read and written by
:mod:`fairacq.relational._psl_layout`.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from fairacq._io import atomic_write, write_json
from fairacq.data import write_table

if TYPE_CHECKING:
    from fairacq.relational._pipeline import PipelineResult
    from fairacq.relational.a3sl._a3sl import FairA3SL

__all__ = ["rule_weights", "write_a3sl", "write_inference", "write_rules"]


def write_inference(
    result: PipelineResult,
    out: str | os.PathLike[str],
    *,
    fmt: Literal["parquet", "csv"] = "parquet",
    final: str | os.PathLike[str] | None = None,
) -> dict[str, Any]:
    """Write inferred atoms (``atoms.<fmt>``), ``summary.json`` and ``model.psl`` into ``out``.

    ``metrics.json`` holds the same summary (the name earlier versions wrote). ``final``:
    the folder ``out`` becomes once written (a run built aside), named as the atoms' place.

    Returns
    -------
    dict
        The summary written (:meth:`PipelineResult.summary`, with ``warnings``, plus the
        atoms' path).
    """
    root = Path(out)
    root.mkdir(parents=True, exist_ok=True)
    atoms = result.predictions.copy()
    for col in atoms.columns:
        if col.startswith("arg"):
            atoms[col] = atoms[col].astype("string")
    atoms_path = write_table(atoms, root / f"atoms.{fmt}", index=False)
    summary = result.summary()
    summary["atoms"] = str(atoms_path if final is None else Path(final) / atoms_path.name)
    write_rules(root / "model.psl", result.rules)
    write_json(root / "metrics.json", summary)
    write_json(root / "summary.json", summary)
    return summary


def write_a3sl(learner: FairA3SL, out: str | os.PathLike[str], payload: dict[str, Any]) -> None:
    """Write a fitted :class:`FairA3SL`'s rules, summary, trace and episodes into ``out``.

    Files: ``rules.psl`` (and the agent's own ``agent_rules.psl`` after refinement),
    ``summary.json`` and ``metrics.json`` (both ``payload``), the run's trace
    (``trace.parquet`` + ``trace.json``: ``Trace.load(out)`` reads it) and ``history.csv``
    (every clause list the agent built, with its reward).
    """
    root = Path(out)
    root.mkdir(parents=True, exist_ok=True)
    write_rules(root / "rules.psl", learner.best_rules_)
    if learner.refine_evaluations is not None:
        write_rules(root / "agent_rules.psl", learner.agent_rules_)
    learner.trace_.save(root / "trace")
    with atomic_write(root / "history.csv") as handle:
        learner.agent_.history().astype({"clauses": str}).to_csv(handle, index=False)
    write_json(root / "metrics.json", payload)
    write_json(root / "summary.json", payload)


def write_rules(path: str | os.PathLike[str], rules: list[str]) -> None:
    """Write PSL rules, one per line, atomically."""
    with atomic_write(path) as handle:
        handle.write("\n".join(rules) + "\n")


def rule_weights(rules: list[str]) -> list[dict[str, Any]]:
    """``{"rule", "weight"}`` of every weighted rule (``"<weight>: ..."``) of ``rules``.

    Examples
    --------
    >>> rule_weights(["2.5: a(X) -> b(X) ^2", "a(X) -> c(X) ."])
    [{'rule': '2.5: a(X) -> b(X) ^2', 'weight': 2.5}]
    """
    out = []
    for rule in rules:
        head = rule.split(":", 1)[0]
        if ":" in rule and _is_float(head):
            out.append({"rule": rule, "weight": float(head)})
    return out


def _is_float(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True
