"""Relational models: hinge-loss MRFs with a PSL-style rule language (paper 004).

Rules written as text are grounded over observed and target atoms into a
:class:`GroundModel` (hinge potentials and linear constraints over the target atoms); MAP
inference minimises its objective under fairness constraints; weight learning and the
Fair-A3SL structure learner build on it.
"""

from __future__ import annotations

from fairacq.relational._ground_model import (
    GroundModel,
    HingePotentials,
    LinearConstraints,
    SparseMatrix,
)

__all__ = ["GroundModel", "HingePotentials", "LinearConstraints", "SparseMatrix"]
