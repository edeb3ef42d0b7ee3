"""The example that ships with fairacq: a PSL model and a data folder to run it on.

The files sit in the package (``fairacq/relational/_example/``): ``model.psl``, the
paper-review rules of Zhang & Ramesh (§5.1) and ``data/``, one sample of the paper-review network
written in the layout of :func:`read_psl_data` with the fairness groups as the observed
predicate ``protectedPaper``. :func:`write_example` copies them where a user wants them and
returns the ``fairacq relational infer`` commands that run on them; :func:`build_example`
writes the same files from their sources (:func:`~fairacq.data.synthetic.make_paper_review`
with :data:`EXAMPLE_SETTINGS`, :func:`write_psl_data`).
"""

from __future__ import annotations

import os
import shlex
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from fairacq._io import atomic_write
from fairacq.relational._psl_layout import _prepare_folder, write_psl_data
from fairacq.relational.psl._models import PAPER_REVIEW_BASE_RULES

__all__ = [
    "EXAMPLE_FAIRNESS",
    "EXAMPLE_SETTINGS",
    "ExampleFiles",
    "build_example",
    "example_commands",
    "write_example",
]

#: The generator's settings of the shipped data (:func:`make_paper_review`).
EXAMPLE_SETTINGS: dict[str, Any] = {
    "n_papers": 60,
    "n_reviewers": 20,
    "n_institutes": 10,
    "random_state": 4,
}

#: ``--fair`` of the example: the constraint, the group predicate and the target.
EXAMPLE_FAIRNESS = "rd<=0.1 protected=protectedPaper target=positiveSummary"

_GROUPS = "protected=protectedPaper target=positiveSummary"
_HEADER = """\
# Paper review (Zhang & Ramesh, §5.1): do reviewers and the summary follow the paper's quality,
# or the author's student status? Targets: positiveReviews(R, P), positiveSummary(P).
# '5.0: body -> head ^2' is a rule of weight 5.0 with a squared hinge (--learn learns the
# weights on the data); '#' starts a comment.
"""


@dataclass(frozen=True)
class ExampleFiles:
    """Where :func:`write_example` put the example, and how to run it.

    Parameters
    ----------
    folder : pathlib.Path
        The folder written.
    rules : pathlib.Path
        ``folder/model.psl``.
    data : pathlib.Path
        ``folder/data``, the PSL data folder.
    commands : tuple of str
        Shell commands: inference with the groups only (metrics, no constraint), then the
        same under ``rd <= 0.1``.
    """

    folder: Path
    rules: Path
    data: Path
    commands: tuple[str, ...]


def example_commands(folder: str | os.PathLike[str]) -> tuple[str, ...]:
    """Return the ``fairacq relational infer`` commands that run the example in ``folder``.

    Examples
    --------
    >>> example_commands("ex")[1]
    "fairacq relational infer --rules ex/model.psl --data ex/data --out ex/run-fair --fair 'rd<=0.1 protected=protectedPaper target=positiveSummary'"
    """  # noqa: E501
    root = Path(folder)
    base = (
        f"fairacq relational infer --rules {shlex.quote(str(root / 'model.psl'))} "
        f"--data {shlex.quote(str(root / 'data'))}"
    )
    return (
        f"{base} --out {shlex.quote(str(root / 'run'))} --fair {shlex.quote(_GROUPS)}",
        f"{base} --out {shlex.quote(str(root / 'run-fair'))} --fair "
        f"{shlex.quote(EXAMPLE_FAIRNESS)}",
    )


def write_example(out: str | os.PathLike[str]) -> ExampleFiles:
    """Copy the shipped example (``model.psl``, ``data/``, ``README.md``) into ``out``.

    Parameters
    ----------
    out : str or path-like
        Created if needed; files of an earlier copy are replaced (atomically, one by one).

    Returns
    -------
    ExampleFiles

    Raises
    ------
    InvalidParameterError
        If ``out`` or ``out/data`` is a file, or ``out/data`` holds data files of other
        predicates (they would be read with the example).
    """
    source = resources.files("fairacq.relational").joinpath("_example")
    data_files = sorted(
        (f for f in source.joinpath("data").iterdir() if f.name.endswith(".txt")),
        key=lambda f: f.name,
    )
    root = Path(out)
    data = _prepare_folder(root / "data", {f.name[:-4] for f in data_files})
    for name in ("model.psl", "README.md"):
        _copy(source.joinpath(name).read_bytes(), root / name)
    for file in data_files:
        _copy(file.read_bytes(), data / file.name)
    return ExampleFiles(root, root / "model.psl", data, example_commands(root))


def _copy(content: bytes, target: Path) -> None:
    with atomic_write(target, "wb") as handle:
        handle.write(content)


def build_example(folder: str | os.PathLike[str]) -> None:
    """Write ``model.psl`` and ``data/`` of the example from their sources into ``folder``.

    What produced the shipped files; a test checks that they still agree.
    """
    from fairacq.data.synthetic import make_paper_review

    root = Path(folder)
    root.mkdir(parents=True, exist_ok=True)
    with atomic_write(root / "model.psl") as handle:
        handle.write(_HEADER + PAPER_REVIEW_BASE_RULES)
    data = make_paper_review(**EXAMPLE_SETTINGS)
    write_psl_data(data, root / "data", protected="protectedPaper")
