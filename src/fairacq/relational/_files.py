"""Files of ``fairacq relational``: PSL data directories in, atoms and learned rules out.

:func:`read_psl_data` reads a PSL data directory as :class:`RelationalData` with the groups
taken from an observed predicate; :func:`write_inference` writes what
:func:`run_pipeline` inferred, and :func:`write_a3sl` what :class:`FairA3SL` learned (on the
paper's data sets of :mod:`fairacq.relational._datasets`).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import pandas as pd

from fairacq._io import write_json
from fairacq.data import write_table
from fairacq.data.relational._relational_data import RelationalData
from fairacq.exceptions import InvalidDataError
from fairacq.relational.hlmrf._database import Database

if TYPE_CHECKING:
    from fairacq.relational._pipeline import PipelineResult
    from fairacq.relational.a3sl._a3sl import FairA3SL

__all__ = ["can_evaluate", "read_psl_data", "rule_weights", "write_a3sl", "write_inference"]


def read_psl_data(
    path: str | os.PathLike[str],
    *,
    target: str | None = None,
    protected: str | None = None,
) -> RelationalData:
    """Read a PSL data directory as :class:`RelationalData`, groups from an observed predicate.

    Parameters
    ----------
    path : str or path-like
        ``<pred>_obs.txt``, ``<pred>_targets.txt`` and ``<pred>_truth.txt`` files
        (:meth:`Database.from_psl_dir`).
    target : str or None, default=None
        The fairness predicate (a target predicate); default: the first one.
    protected : str or None, default=None
        An observed predicate over the target's atoms: atoms with value >= 0.5 are the
        protected group, every other target atom the unprotected one. None: no groups.

    Returns
    -------
    RelationalData

    Raises
    ------
    CorruptFileError
        If the directory or a file cannot be read.
    InvalidDataError
        If there is no target file, ``target`` is not a target predicate, or ``protected`` is
        not an observed predicate with the target's arity.
    """
    db = Database.from_psl_dir(Path(path))
    observations, targets, truth = db.to_frames()
    if not targets:
        raise InvalidDataError(
            f"relational infer: {path} has no '*_targets.txt' file; list the atoms to infer."
        )
    target = target if target is not None else next(iter(targets))
    if target not in targets:
        raise InvalidDataError(
            f"relational infer: target={target!r} is not a target predicate "
            f"({', '.join(targets)})."
        )
    args = [c for c in targets[target].columns if c != "value"]
    atoms = targets[target][args].astype(str)
    if protected is None:
        group_atoms, other_atoms = atoms.iloc[:0], atoms
    else:
        if protected not in observations:
            raise InvalidDataError(
                f"relational infer: protected={protected!r} is not an observed predicate "
                f"of {path}. Add '{protected}_obs.txt' listing the protected atoms."
            )
        group = observations[protected]
        gargs = [c for c in group.columns if c != "value"]
        if len(gargs) != len(args):
            raise InvalidDataError(
                f"relational infer: protected={protected!r} has {len(gargs)} arguments "
                f"but {target!r} has {len(args)}; the group predicate must list target atoms "
                f"(e.g. protectedPaper(P) for positiveSummary(P))."
            )
        flagged = group.loc[group["value"].to_numpy(dtype=float) >= 0.5, gargs].astype(str)
        keys = set(flagged.itertuples(index=False, name=None))
        mask = [k in keys for k in atoms.itertuples(index=False, name=None)]
        group_atoms = atoms.loc[mask].reset_index(drop=True)
        other_atoms = atoms.loc[[not m for m in mask]].reset_index(drop=True)
    return RelationalData(
        observations=observations,
        targets=targets,
        truth=truth,
        protected=pd.DataFrame(group_atoms),
        unprotected=pd.DataFrame(other_atoms),
        metadata={"fairness_predicate": target, "task": "classification", "source": str(path)},
    )


def can_evaluate(data: RelationalData) -> bool:
    """Whether the paper's metrics apply: truth for every fairness atom and both groups."""
    pred = data.fairness_predicate
    return bool(
        pred is not None
        and pred in data.truth
        and len(data.protected) > 0
        and len(data.unprotected) > 0
        and len(data.truth[pred]) == len(data.targets[pred])
    )


def write_inference(
    result: PipelineResult,
    out: str | os.PathLike[str],
    *,
    fmt: Literal["parquet", "csv"] = "parquet",
) -> dict[str, Any]:
    """Write inferred atoms (``atoms.<fmt>``), ``metrics.json`` and ``model.psl`` into ``out``.

    Returns
    -------
    dict
        The summary written to ``metrics.json`` (:meth:`PipelineResult.summary` plus the
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
    summary["atoms"] = str(atoms_path)
    write_json(root / "metrics.json", summary)
    (root / "model.psl").write_text("\n".join(result.rules) + "\n", encoding="utf-8")
    return summary


def write_a3sl(learner: FairA3SL, out: str | os.PathLike[str], payload: dict[str, Any]) -> None:
    """Write a fitted :class:`FairA3SL`'s rules, metrics and history into ``out``.

    Files: ``rules.psl`` (and the agent's own ``agent_rules.psl`` after refinement),
    ``metrics.json`` (``payload``) and ``history.csv``.
    """
    root = Path(out)
    root.mkdir(parents=True, exist_ok=True)
    (root / "rules.psl").write_text("\n".join(learner.best_rules_) + "\n", encoding="utf-8")
    if learner.refine_history_ is not None:
        (root / "agent_rules.psl").write_text(
            "\n".join(learner.agent_rules_) + "\n", encoding="utf-8"
        )
    write_json(root / "metrics.json", payload)
    learner.history_.astype({"clauses": str}).to_csv(root / "history.csv", index=False)


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
