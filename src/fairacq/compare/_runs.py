"""One run of one strategy on one seed: timed, its warnings kept, a failure noted not raised."""

from __future__ import annotations

import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from fairacq._random import RandomState
from fairacq.compare._target import Target
from fairacq.data import FairDataset
from fairacq.exceptions import DegenerateModelError, FairacqError
from fairacq.models import MitigatedModel, is_one_class, predict_scores

__all__ = ["RunLog", "Settings", "one_class_on"]

_NOISE = (DeprecationWarning, PendingDeprecationWarning, FutureWarning)


@dataclass(frozen=True)
class Settings:
    """What every run of a comparison shares.

    Attributes
    ----------
    learner : str or estimator
        The base model (a :func:`fairacq.models.make_learner` name, ``module:Class`` or an
        estimator).
    budget : int
        Rows (or cost units) each strategy may buy.
    batch : int
        Rows (or cost units) per acquisition batch.
    metrics : tuple of str
        Metrics measured on the test rows.
    steer : str
        The metric the acquisition methods push down (on the validation rows). They spend
        the whole budget: an early stop on a few validation rows would stop a run at step 0
        whenever their gap happens to be within the target, whatever the test rows say.
    target : Target
        The bound checked on the test rows.
    cost_model : str
        ``"evaluated"``: every pool row whose label a method looked at is paid.
    """

    learner: Any
    budget: int
    batch: int
    metrics: tuple[str, ...]
    steer: str
    target: Target
    cost_model: str = "evaluated"


@dataclass
class RunLog:
    """The records of a comparison's runs, and what went wrong on the way.

    Attributes
    ----------
    records : list of dict
        One per run: ``method``, ``kind``, ``seed``, ``cost``, ``seconds``, then the metrics
        on the test rows (and ``allocation`` for samplers).
    failures : list of str
        ``"<method>, seed <i>: <why>"`` for each run that raised.
    notes : dict of str to None
        Distinct warnings raised inside the runs, prefixed by the method (an ordered set).
    progress : callable or None
        Called as ``progress(done, total)`` after each run.
    total : int
        Runs planned (for ``progress``).
    baseline : str or None
        The strategy every other one is measured against: when its model gives no usable
        probabilities (:class:`~fairacq.exceptions.DegenerateModelError`) the comparison
        stops, as nothing can be measured against it.
    """

    records: list[dict[str, Any]] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)
    notes: dict[str, None] = field(default_factory=dict)
    progress: Callable[[int, int], object] | None = None
    total: int = 0
    done: int = 0
    baseline: str | None = None

    def run(
        self, method: str, kind: str, seed: int, fn: Callable[[], dict[str, Any]]
    ) -> dict[str, Any] | None:
        """Run ``fn`` (returning ``cost`` and the metrics) and keep its record.

        A :class:`~fairacq.exceptions.FairacqError` or a ``ValueError`` (a model that cannot
        be fitted on the rows drawn) becomes a failure line; the comparison goes on.
        """
        clock = time.perf_counter()
        record: dict[str, Any] | None = None
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                values = fn()
            except (FairacqError, ValueError) as exc:
                if isinstance(exc, DegenerateModelError) and method == self.baseline:
                    raise DegenerateModelError(
                        f"{method}, the strategy every other is measured against, has no "
                        f"usable model: {' '.join(str(exc).split())}"
                    ) from exc
                self.failures.append(f"{method}, seed {seed}: {' '.join(str(exc).split())}")
            else:
                seconds = round(time.perf_counter() - clock, 3)
                record = {"method": method, "kind": kind, "seed": seed, **values}
                record["seconds"] = seconds
                self.records.append(record)
        for w in caught:
            if not issubclass(w.category, _NOISE):
                self.notes.setdefault(f"{method}: {' '.join(str(w.message).split())}", None)
        self.done += 1
        if self.progress is not None:
            self.progress(self.done, self.total)
        return record


def one_class_on(model: Any, test: FairDataset, *, random_state: RandomState = 0) -> bool:
    """Whether ``model`` predicts one class for every one of the ``test`` rows.

    ``model`` is a fitted classifier (thresholded at 0.5, as
    :func:`fairacq.models.evaluate` does) or a :class:`~fairacq.models.MitigatedModel`
    (its own predictions, drawn with ``random_state``).
    """
    if isinstance(model, MitigatedModel):
        return is_one_class(model.predict(test, random_state=random_state))
    return is_one_class(predict_scores(model, test.to_numpy()) >= 0.5)
