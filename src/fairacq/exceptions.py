"""Exceptions raised by fairacq.

The tree is small on purpose::

    FairacqError
    ├── InvalidDataError(ValueError)       bad data: lengths, NaNs, labels, a single group
    ├── InvalidParameterError(ValueError)  a hyper-parameter or option out of its range
    ├── UnknownNameError(ValueError)       an unknown dataset, metric, model or experiment name
    ├── BudgetError(ValueError)            a budget or batch that the pool cannot serve
    ├── NotFittedError(ValueError, AttributeError)
    ├── CorruptFileError(OSError)          a file that cannot be read or whose checksum differs
    ├── DegenerateModelError(ValueError)   a model whose probabilities are NaN, out of [0, 1]
    ├── SchedulerUnreachableError(ConnectionError) no dask scheduler answers at an address
    └── MissingDependencyError(ImportError) an optional dependency that is not installed

Every message names what is wrong, where, the value found and the fix. The command-line
interface turns any :class:`FairacqError` into exit code 2 and one line on stderr.
"""

from __future__ import annotations

__all__ = [
    "BudgetError",
    "CorruptFileError",
    "DegenerateModelError",
    "FairacqError",
    "InvalidDataError",
    "InvalidParameterError",
    "MissingDependencyError",
    "NotFittedError",
    "ResourceLimitError",
    "ResultWarning",
    "SchedulerUnreachableError",
    "UnknownNameError",
]


class FairacqError(Exception):
    """Base class of every error that fairacq raises on purpose."""


class InvalidDataError(FairacqError, ValueError):
    """Input data is malformed: wrong lengths, NaNs, non-binary labels, a single group."""


class InvalidParameterError(FairacqError, ValueError):
    """A hyper-parameter or option is outside the values it accepts."""


class UnknownNameError(FairacqError, ValueError):
    """A dataset, metric, learner or experiment name is not registered."""


class BudgetError(FairacqError, ValueError):
    """A budget or batch size that the pool or the groups cannot serve."""


class NotFittedError(FairacqError, ValueError, AttributeError):
    """A fitted attribute was requested before the work method ran."""


class CorruptFileError(FairacqError, OSError):
    """A file cannot be parsed, or its checksum does not match the expected one."""


class DegenerateModelError(FairacqError, ValueError):
    """A model's outputs are not a classifier's (NaN, outside [0, 1], one column per class).

    Nothing said about such a model's fairness can be trusted.
    """


class SchedulerUnreachableError(FairacqError, ConnectionError):
    """No dask scheduler answers at the given address within the connect timeout."""


class ResourceLimitError(FairacqError, ValueError):
    """A computation would need more memory or time than its limit allows."""


class MissingDependencyError(FairacqError, ImportError):
    """An optional dependency is needed but not installed."""


class ResultWarning(UserWarning):
    """A run finished but its result is not what was asked.

    A one-class model, a bound missed on the test data, exploration not decayed, groups too
    small to trust: the run's summary records each one.
    """
