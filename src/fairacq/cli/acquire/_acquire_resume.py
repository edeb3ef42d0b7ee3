"""What an ``acquire`` checkpoint was written for: its inputs' content and the run's options.

The checkpoint's trace carries a stamp (``meta["run_inputs"]``): the sha256 of every file
the run read and the options that shape its steps. ``--resume`` goes on only from a
checkpoint whose stamp equals this run's; otherwise it stops before any work, in one line
naming what differs.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from fairacq.exceptions import InvalidParameterError

__all__ = ["SHAPING_OPTIONS", "STAMP_KEY", "check_stamp", "run_stamp"]

#: Where the stamp is kept in a checkpoint trace's metadata.
STAMP_KEY = "run_inputs"

#: The ``acquire`` options that shape a run's steps (its files are stamped by content).
SHAPING_OPTIONS = (
    "dataset", "sensitive", "method", "budget", "batch", "model", "model_param", "metric",
    "tau", "alpha", "accuracy_weight", "tol", "placement", "bias", "refit", "cost_model",
    "seed", "label", "cost", "categorical", "drop", "positive", "impute", "sensitive_column",
    "cost_column",
)  # fmt: skip


def run_stamp(
    files: Mapping[str, str | os.PathLike[str] | None], options: Mapping[str, Any]
) -> dict[str, Any]:
    """Return what a checkpoint of this run records: its files' sha256 and its options.

    Parameters
    ----------
    files : mapping of str to path-like or None
        The run's input files by option (``{"--pool": path, "--test": None}``).
    options : mapping of str to any
        The run's parameters by name (``method``, ``seed``, ...); only
        :data:`SHAPING_OPTIONS` are kept.

    Returns
    -------
    dict
        ``{"files": {option: sha256}, "options": {"--name": value}}`` in JSON types.

    Examples
    --------
    >>> run_stamp({"--pool": None}, {"seed": 3, "out": "x"})
    {'files': {}, 'options': {'--seed': 3}}
    """
    from fairacq._artefact import sha256_file, to_jsonable

    hashed = {k: sha256_file(v) for k, v in files.items() if v is not None}
    shaping = {f"--{k.replace('_', '-')}": options[k] for k in SHAPING_OPTIONS if k in options}
    stamp: dict[str, Any] = to_jsonable({"files": hashed, "options": shaping}, unknown="str")
    return stamp  # in JSON types, as the checkpoint's metadata will read back


def check_stamp(meta: Mapping[str, Any], stamp: Mapping[str, Any], where: Path) -> None:
    """Refuse to resume from a checkpoint (trace ``meta``) written for other inputs.

    Raises
    ------
    InvalidParameterError
        If the checkpoint records no stamp, or its files or options differ from ``stamp``
        (one line naming the first difference, with the fix).
    """
    saved = meta.get(STAMP_KEY)
    afresh = "or drop --resume to start afresh"
    if not isinstance(saved, Mapping):
        raise InvalidParameterError(
            f"the checkpoint {where} does not record what it was written for (an older "
            f"fairacq wrote it), so it cannot be checked against this run; {afresh}."
        )
    for option in sorted(set(saved.get("files", {})) | set(stamp["files"])):
        then, now = saved.get("files", {}).get(option), stamp["files"].get(option)
        if then != now:
            how = (
                "its content differs"
                if then and now
                else ("given then, not now" if then else "not given then")
            )
            raise InvalidParameterError(
                f"the checkpoint was written for another {option} ({how}); pass the same "
                f"inputs, {afresh}."
            )
    for option in sorted(set(saved.get("options", {})) | set(stamp["options"])):
        then, now = saved.get("options", {}).get(option), stamp["options"].get(option)
        if then != now:
            raise InvalidParameterError(
                f"the checkpoint was written with {option} {then} (now {now}); pass the same "
                f"options, {afresh}."
            )
