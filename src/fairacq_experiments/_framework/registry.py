"""The catalogue of reproducible experiments, by name."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from fairacq._validation import did_you_mean

if TYPE_CHECKING:
    from fairacq.parallel import Executor
    from fairacq_experiments._framework.config import ExperimentConfig
    from fairacq_experiments._framework.result import ExperimentResult

__all__ = ["ExperimentSpec", "get_experiment", "list_experiments", "register"]


@dataclass(frozen=True)
class ExperimentSpec:
    """A named experiment: which figure or table of which paper, its config and its runner.

    Attributes
    ----------
    name : str
        ``<family>-<figure>``, e.g. ``"datasift-fig3"``.
    family : str
        The fairacq family.
    paper : str
        Paper key and the figure/table reproduced.
    title : str
        One line for ``fairacq reproduce --list``.
    config_cls : type
        The :class:`ExperimentConfig` subclass.
    run : callable
        ``run(config, executor) -> ExperimentResult``.
    merge : callable or None
        ``merge([(config, summary meta), ...]) -> ExperimentResult``: summarise runs of parts
        of the experiment (e.g. some folds each) as one run; None if not supported.
    """

    name: str
    family: str
    paper: str
    title: str
    config_cls: type[ExperimentConfig]
    run: Callable[[ExperimentConfig, Executor], ExperimentResult]
    merge: (
        Callable[[Sequence[tuple[ExperimentConfig, Mapping[str, Any]]]], ExperimentResult] | None
    ) = None


_EXPERIMENTS: dict[str, ExperimentSpec] = {}


def register(spec: ExperimentSpec) -> ExperimentSpec:
    """Add ``spec`` to the catalogue (names are unique)."""
    if spec.name in _EXPERIMENTS and _EXPERIMENTS[spec.name] is not spec:
        raise ValueError(f"Experiment {spec.name!r} is registered twice.")
    _EXPERIMENTS[spec.name] = spec
    return spec


def list_experiments() -> list[ExperimentSpec]:
    """Every registered experiment, sorted by name."""
    return [_EXPERIMENTS[k] for k in sorted(_EXPERIMENTS)]


def get_experiment(name: str) -> ExperimentSpec:
    """Return the experiment registered under ``name``.

    Raises
    ------
    UnknownNameError
        With the closest name.
    """
    try:
        return _EXPERIMENTS[name]
    except KeyError:
        raise did_you_mean("experiment", name, _EXPERIMENTS, "fairacq reproduce --list") from None
