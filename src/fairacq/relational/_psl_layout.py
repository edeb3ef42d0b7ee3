"""PSL data folders in and out: the layout ``fairacq relational infer`` reads.

One folder, three kinds of tab-separated text files without a header, named after the
predicate:

- ``<pred>_obs.txt``: observed atoms, the arguments then an optional truth value in
  ``[0, 1]`` (1 when absent). Closed world: an atom of an observed-only predicate that is not
  listed is 0.
- ``<pred>_targets.txt``: the target atoms to infer (arguments only; open atoms).
- ``<pred>_truth.txt``: the true values of target atoms (arguments then the value), for weight
  learning and the metrics.

:func:`read_psl_data` reads such a folder as :class:`RelationalData`, the fairness groups taken
from an observed predicate over the target's atoms; :func:`write_psl_data` writes
:class:`RelationalData` in the layout, so that reading it back gives the same atoms.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Literal

import numpy as np
import pandas as pd

from fairacq._io import atomic_write, check_output_dir
from fairacq.data.relational._relational_data import RelationalData
from fairacq.exceptions import InvalidDataError, InvalidParameterError
from fairacq.relational.hlmrf._database import Database

__all__ = ["PSL_SUFFIXES", "can_evaluate", "read_psl_data", "write_psl_data"]

#: Role -> the file-name suffix of the layout (``<pred><suffix>.txt``).
PSL_SUFFIXES: Mapping[str, str] = {
    "observations": "_obs",
    "targets": "_targets",
    "truth": "_truth",
}

Task = Literal["classification", "rating"]


def read_psl_data(
    path: str | os.PathLike[str],
    *,
    target: str | None = None,
    protected: str | None = None,
    arities: Mapping[str, int] | None = None,
    task: Task = "classification",
) -> RelationalData:
    """Read a PSL data directory as :class:`RelationalData`, groups from an observed predicate.

    Parameters
    ----------
    path : str or path-like
        ``<pred>_obs.txt``, ``<pred>_targets.txt`` and ``<pred>_truth.txt`` files
        (:meth:`Database.from_psl_dir`; the layout is in this module's docstring).
    target : str or None, default=None
        The fairness predicate (a target predicate); default: the first one.
    protected : str or None, default=None
        An observed predicate over the target's atoms: atoms with value >= 0.5 are the
        protected group, every other target atom the unprotected one. None: no groups.
    arities : mapping of str to int or None, default=None
        Number of arguments of predicates (what the rules use, see :func:`rule_arities`), so
        that a last column is read as the truth value for sure. ``None``: inferred per file.
    task : {"classification", "rating"}, default="classification"
        Which metrics apply to the target (``metadata["task"]``): AUCs and RD/RR/RC with the
        truth read as labels (above 0.5 is positive), or MSE and non-parity for graded truth
        (the last argument is then the item).

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
    if task not in ("classification", "rating"):
        raise InvalidParameterError(
            f"read_psl_data: task must be 'classification' or 'rating', got {task!r}."
        )
    db = Database.from_psl_dir(Path(path), arities=arities)
    observations, targets, truth = db.to_frames()
    if not targets:
        raise InvalidDataError(
            f"{path} has no '<pred>_targets.txt' file; list the atoms to infer in one "
            "(arguments only, tab-separated)."
        )
    if not any(len(frame) for frame in targets.values()):
        raise InvalidDataError(
            f"{path}: the '<pred>_targets.txt' files list no atoms, so there is nothing to "
            "infer. List the atoms to infer, one per line (arguments, tab-separated)."
        )
    target = target if target is not None else next(iter(targets))
    if target not in targets:
        raise InvalidDataError(
            f"target={target!r} is not a target predicate of {path} "
            f"({', '.join(targets)}); name one that has a '<pred>_targets.txt' file."
        )
    args = [c for c in targets[target].columns if c != "value"]
    atoms = targets[target][args].astype(str)
    mask = _protected_mask(path, observations, atoms, target, protected)
    return RelationalData(
        observations=observations,
        targets=targets,
        truth=truth,
        protected=pd.DataFrame(atoms.loc[mask].reset_index(drop=True)),
        unprotected=pd.DataFrame(atoms.loc[~mask].reset_index(drop=True)),
        metadata={"fairness_predicate": target, "task": task, "source": str(path)},
    )


def _protected_mask(
    path: str | os.PathLike[str],
    observations: Mapping[str, pd.DataFrame],
    atoms: pd.DataFrame,
    target: str,
    protected: str | None,
) -> np.ndarray:
    """Flag the target atoms that ``protected`` (an observed predicate) lists with value >= 0.5.

    Without ``protected`` no atom is flagged (and the data has no protected group).
    """
    if protected is None:
        return np.zeros(len(atoms), dtype=bool)
    if protected not in observations:
        raise InvalidDataError(
            f"protected={protected!r} is not an observed predicate of {path}. Add "
            f"'{protected}_obs.txt' listing the protected atoms of {target!r} (value 1)."
        )
    group = observations[protected]
    gargs = [c for c in group.columns if c != "value"]
    if len(gargs) != atoms.shape[1]:
        raise InvalidDataError(
            f"protected={protected!r} has {len(gargs)} arguments but {target!r} has "
            f"{atoms.shape[1]}; the group predicate must list target atoms "
            "(e.g. protectedPaper(P) for positiveSummary(P))."
        )
    flagged = group.loc[group["value"].to_numpy(dtype=float) >= 0.5, gargs].astype(str)
    keys = set(flagged.itertuples(index=False, name=None))
    return np.array([k in keys for k in atoms.itertuples(index=False, name=None)], dtype=bool)


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


def write_psl_data(
    data: RelationalData,
    folder: str | os.PathLike[str],
    *,
    protected: str | None = None,
) -> dict[str, Path]:
    """Write ``data`` in the layout that :func:`read_psl_data` reads.

    Each observed predicate goes to ``<pred>_obs.txt`` (arguments, value), each target
    predicate to ``<pred>_targets.txt`` (arguments) and its truth to ``<pred>_truth.txt``
    (arguments, value); values are written exactly (shortest round-trip decimals). Each file
    is written atomically. Column names and ``metadata`` are not part of the layout (the
    reader names the arguments ``a0, a1, ...``).

    Parameters
    ----------
    data : RelationalData
        The atoms to write.
    folder : str or path-like
        Created if needed. It may not already hold layout files of predicates that ``data``
        does not have (they would be read back with it).
    protected : str or None, default=None
        Also write the fairness groups as the observed predicate ``<protected>_obs.txt``: the
        protected atoms of the fairness predicate with value 1, the unprotected ones with 0.
        Read them back with ``read_psl_data(folder, target=..., protected=protected)``.
        ``None``: the groups are not written.

    Returns
    -------
    dict of str to pathlib.Path
        File stem (``"risky_obs"``) -> the file written.

    Raises
    ------
    InvalidDataError
        If an argument is empty, holds a tab or a line break, or starts or ends with a
        space (the layout cannot carry it), or ``protected`` names an existing predicate.
    InvalidParameterError
        If ``folder`` is a file or holds layout files of other predicates.

    Examples
    --------
    >>> import tempfile
    >>> from fairacq.data.synthetic import make_paper_review
    >>> data = make_paper_review(n_papers=10, n_reviewers=4, random_state=0)
    >>> folder = tempfile.mkdtemp()
    >>> files = write_psl_data(data, folder, protected="protectedPaper")
    >>> back = read_psl_data(folder, target="positiveSummary", protected="protectedPaper")
    >>> len(back.protected) == len(data.protected), sorted(back.targets)
    (True, ['positiveReviews', 'positiveSummary'])
    """
    tables = _layout_tables(data, protected)
    root = _prepare_folder(Path(folder), set(tables))
    written: dict[str, Path] = {}
    for stem, frame in tables.items():
        written[stem] = _write_table(frame, root / f"{stem}.txt", stem)
    return written


def _layout_tables(data: RelationalData, protected: str | None) -> dict[str, pd.DataFrame]:
    """Every file of the layout as ``stem -> table`` (argument columns, optional value)."""
    tables: dict[str, pd.DataFrame] = {}
    for role, frames in (
        ("observations", data.observations),
        ("targets", data.targets),
        ("truth", data.truth),
    ):
        for name, frame in frames.items():
            keep = frame if role != "targets" else frame.drop(columns="value", errors="ignore")
            tables[f"{name}{PSL_SUFFIXES[role]}"] = keep
    if protected is not None:
        if protected in data.observations or protected in data.targets:
            raise InvalidDataError(
                f"write_psl_data: protected={protected!r} is already a predicate of the data; "
                "name the group predicate something new (e.g. 'protectedPaper')."
            )
        groups = pd.concat(
            [
                data.protected.assign(value=1.0),
                data.unprotected.assign(value=0.0),
            ],
            ignore_index=True,
        )
        tables[f"{protected}{PSL_SUFFIXES['observations']}"] = groups
    return tables


def _prepare_folder(root: Path, stems: set[str]) -> Path:
    """Create ``root``; refuse a file, or layout files of predicates not being written."""
    if root.exists() and not root.is_dir():
        raise InvalidParameterError(
            f"write_psl_data: {root} is a file; pass a folder (it is created if needed)."
        )
    check_output_dir(root)  # a parent that is a file: one line, not NotADirectoryError
    root.mkdir(parents=True, exist_ok=True)
    suffixes = tuple(f"{s}.txt" for s in PSL_SUFFIXES.values())
    stale = sorted(
        p.name
        for p in root.iterdir()
        if p.is_file() and p.name.endswith(suffixes) and p.name[:-4] not in stems
    )
    if stale:
        raise InvalidParameterError(
            f"write_psl_data: {root} already holds {stale[0]} (and {len(stale) - 1} other "
            "layout files) of a predicate this data does not have; they would be read back "
            "with it. Write into an empty folder."
        )
    return root


def _write_table(frame: pd.DataFrame, path: Path, stem: str) -> Path:
    """Write one table: arguments as text, the value with a round-trip decimal."""
    args = [c for c in frame.columns if c != "value"]
    text = frame[args].astype(str)
    for col in args:
        bad = text[col].str.contains(r"[\t\r\n]") | (text[col] != text[col].str.strip())
        bad |= text[col] == ""
        if bad.any():
            value = text[col][bad].iloc[0]
            raise InvalidDataError(
                f"write_psl_data: {stem}: argument {value!r} is empty, holds a tab or line "
                "break, or has surrounding spaces; the tab-separated layout cannot carry it. "
                "Rename the constant."
            )
    columns = [text[c].tolist() for c in args]
    if "value" in frame.columns:
        columns.append([repr(float(v)) for v in frame["value"].to_numpy(dtype=np.float64)])
    with atomic_write(path) as handle:
        handle.writelines("\t".join(row) + "\n" for row in zip(*columns, strict=True))
    return path
