"""Build any pool acquirer by name, and the thin functional entry point ``acquire``."""

from __future__ import annotations

from typing import Any

from numpy.typing import ArrayLike

from fairacq._trace import Trace
from fairacq._validation import check_known_params, did_you_mean
from fairacq.acquisition.loop._acquirer import Acquirer
from fairacq.acquisition.methods._datasift import (
    AutoDataAcquirer,
    DataSiftAcquirer,
    DataSiftInfAcquirer,
)
from fairacq.acquisition.methods._entropy import EntropyAcquirer
from fairacq.acquisition.methods._fal import FALAcquirer
from fairacq.acquisition.methods._falcon import FalconAcquirer
from fairacq.acquisition.methods._inf import InfAcquirer
from fairacq.acquisition.methods._post_thresholds import PostThresholdAcquirer
from fairacq.acquisition.methods._random_acquirer import RandomAcquirer
from fairacq.acquisition.methods._threshold_aware import ThresholdAwareAcquirer
from fairacq.acquisition.pools._chunk_map import ChunkExecutor
from fairacq.acquisition.pools._pool_source import PoolSource
from fairacq.data import FairDataset
from fairacq.exceptions import InvalidParameterError

__all__ = [
    "acquire",
    "acquirer_needs_gradients",
    "available_acquirers",
    "make_acquirer",
    "metric_problem",
]

_ACQUIRERS: dict[str, type[Acquirer]] = {
    "random": RandomAcquirer,
    "entropy": EntropyAcquirer,
    "inf": InfAcquirer,
    "autodata": AutoDataAcquirer,
    "datasift": DataSiftAcquirer,
    "datasift-inf": DataSiftInfAcquirer,
    "falcon": FalconAcquirer,
    "fal": FALAcquirer,
    "post-thresholds": PostThresholdAcquirer,
    "threshold-aware": ThresholdAwareAcquirer,
}


def available_acquirers() -> list[str]:
    """Names accepted by :func:`make_acquirer`.

    Examples
    --------
    >>> available_acquirers()  # doctest: +NORMALIZE_WHITESPACE
    ['autodata', 'datasift', 'datasift-inf', 'entropy', 'fal', 'falcon', 'inf', 'post-thresholds',
     'random', 'threshold-aware']
    """
    return sorted(_ACQUIRERS)


def acquirer_needs_gradients(method: str) -> bool:
    """Whether ``method`` computes influence, so needs a model with gradients.

    A model without them (:func:`fairacq.valuation.has_gradients` is False: a forest,
    boosting) cannot serve such a method; a comparison of every method skips it.

    Examples
    --------
    >>> [m for m in available_acquirers() if acquirer_needs_gradients(m)]
    ['datasift-inf', 'inf']
    """
    return bool(_class_of(method)._needs_gradients)


def metric_problem(method: str, metric: str) -> str | None:
    """Why ``method`` cannot steer ``metric``, or None when it can.

    Some methods steer only some metrics (``threshold-aware``: demographic parity); a
    comparison of every method skips those that cannot steer its target.

    Examples
    --------
    >>> metric_problem("random", "equal_opportunity_diff") is None
    True
    >>> metric_problem("threshold-aware", "equal_opportunity_diff")[:45]
    'ThresholdAwareAcquirer steers demographic par'
    """
    acquirer = _class_of(method)(metric=metric)
    try:
        acquirer._check_metric()
    except InvalidParameterError as exc:
        return str(exc)
    return None


def _class_of(method: str) -> type[Acquirer]:
    try:
        return _ACQUIRERS[method]
    except KeyError:
        raise did_you_mean(
            "acquisition method", method, _ACQUIRERS, "fairacq.acquisition.available_acquirers()"
        ) from None


def make_acquirer(method: str, **params: Any) -> Acquirer:
    """Build the acquirer registered as ``method`` with hyper-parameters ``params``.

    A parameter the method does not take (a typo such as ``alhpa``, or ``alpha`` for
    ``random``) is refused. To drive several methods with one parameter set, keep for each
    method the keys of ``make_acquirer(method).get_params()``.

    Raises
    ------
    UnknownNameError
        With the closest name.
    InvalidParameterError
        For a parameter the method does not take, with the closest one it takes.

    Examples
    --------
    >>> make_acquirer("datasift", alpha=0.5).alpha
    0.5
    >>> make_acquirer("datasift", alhpa=0.5)
    Traceback (most recent call last):
    ...
    fairacq.exceptions.InvalidParameterError: make_acquirer: method 'datasift' takes no \
parameter 'alhpa'. Did you mean 'alpha'? ...
    """
    cls = _class_of(method)
    check_known_params(f"make_acquirer: method {method!r}", params, cls._get_param_names())
    return cls(**params)


def acquire(
    train: FairDataset,
    pool: FairDataset | PoolSource,
    *,
    validation: FairDataset,
    method: str = "datasift-inf",
    test: FairDataset | None = None,
    costs: ArrayLike | None = None,
    executor: ChunkExecutor | None = None,
    **params: Any,
) -> Trace:
    """Fit acquisition method ``method`` and return its trace.

    A shortcut for ``make_acquirer(method, **params).fit(...).trace_`` when only the trace
    is wanted (the fitted acquirer, with ``acquired_`` and ``model_``, is dropped; see
    :meth:`Acquirer.fit`).

    Examples
    --------
    >>> from fairacq.data import load_toy
    >>> ds = load_toy(300)
    >>> trace = acquire(ds.subset(range(60)), ds.subset(range(150, 300)),
    ...                 validation=ds.subset(range(60, 150)), method="random", budget=30,
    ...                 batch_size=10, random_state=0)
    >>> trace.final("cost")
    30.0
    """
    return (
        make_acquirer(method, **params)
        .fit(train, pool, validation=validation, test=test, costs=costs, executor=executor)
        .trace_
    )
