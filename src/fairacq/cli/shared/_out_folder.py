"""The ``--out`` folder of a run: checked before any work, built aside, swapped in whole."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from fairacq._io import Inputs

__all__ = ["OverwriteOpt", "check_out_folder"]

OverwriteOpt = Annotated[
    bool,
    typer.Option(
        "--overwrite",
        help="Replace the run already in --out (only fairacq's own files; a folder holding "
        "other files is never replaced). The new run is built beside it and swapped in when "
        "it finishes, so a stopped run leaves the earlier one as it was.",
    ),
]


def check_out_folder(
    out: Path, inputs: Inputs, *, overwrite: bool, checkpoint_ok: bool = False
) -> None:
    """Check ``--out`` before any work: no input inside it, no other run or file in it.

    Parameters
    ----------
    out : Path
        The run folder.
    inputs : mapping
        The command's input paths by option (none may lie inside ``out``).
    overwrite : bool
        Whether an earlier run in ``out`` may be replaced.
    checkpoint_ok : bool, default=False
        Whether a folder holding only a checkpoint is fine (``acquire``).

    Raises
    ------
    InvalidParameterError
        One line naming the problem and the fix (printed by ``user_errors()``).
    """
    from fairacq._io import check_output_dir
    from fairacq._run_folder import check_run_folder

    check_output_dir(out, option="--out", inputs=inputs)
    check_run_folder(out, overwrite=overwrite, checkpoint_ok=checkpoint_ok)
