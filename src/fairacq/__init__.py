"""fairacq: fairness-aware data and information acquisition.

Five published systems behind one API, each answering "what should I collect next so that my
model treats groups of people more fairly?":

- :mod:`fairacq.acquisition` — which pool rows to acquire (DataSift, Hasan & Pradhan);
- :mod:`fairacq.sampling` — how many samples to draw from each group (Aopt, Shekhar et al.);
- :mod:`fairacq.features` — which features to ask each individual for (DADI, Bakker et al.);
- :mod:`fairacq.filtering` — whom to admit without seeing their group (Deng et al.);
- :mod:`fairacq.relational` — which relational rules a fair model may use (Fair-A3SL).

Shared layers: :mod:`fairacq.data` (:class:`FairDataset`, loaders, splits, generators),
:mod:`fairacq.metrics`, :mod:`fairacq.models`, :mod:`fairacq.reporting` and
:mod:`fairacq.parallel` (executors). Every run records a :class:`Trace`; every result
(``*Result``) is a :class:`Result`: ``to_frame()``, ``save`` / ``load`` and a notebook view.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from fairacq._lazy import lazy_exports as _lazy_exports
from fairacq._version import __version__
from fairacq.exceptions import (
    BudgetError,
    CorruptFileError,
    DegenerateModelError,
    FairacqError,
    InvalidDataError,
    InvalidParameterError,
    MissingDependencyError,
    NotFittedError,
    ResourceLimitError,
    ResultWarning,
    UnknownNameError,
)

if TYPE_CHECKING:
    from fairacq._callbacks import CheckpointCallback
    from fairacq._result import Result
    from fairacq._trace import Trace, TraceRecorder
    from fairacq.data import FairDataset

__all__ = [
    "BudgetError",
    "CheckpointCallback",
    "CorruptFileError",
    "DegenerateModelError",
    "FairDataset",
    "FairacqError",
    "InvalidDataError",
    "InvalidParameterError",
    "MissingDependencyError",
    "NotFittedError",
    "ResourceLimitError",
    "Result",
    "ResultWarning",
    "Trace",
    "TraceRecorder",
    "UnknownNameError",
    "__version__",
]

# Importing fairacq stays cheap (no pandas): these load on first access.
_LAZY = {
    "CheckpointCallback": "fairacq._callbacks",
    "FairDataset": "fairacq.data",
    "Result": "fairacq._result",
    "Trace": "fairacq._trace",
    "TraceRecorder": "fairacq._trace",
}

__getattr__, __dir__ = _lazy_exports(__name__, _LAZY, __all__)
