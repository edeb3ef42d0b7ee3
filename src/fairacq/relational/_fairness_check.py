"""Whether inferred atoms meet delta-fairness bounds, measured as the constraints define them.

The metrics of :func:`~fairacq.relational.evaluate_atoms` follow the data's favourable outcome
(for COMPAS, RR and RC swap roles); the constraints of
:func:`~fairacq.relational.fairness_constraints` are on the denial rates ``p = 1 - mean(y)``
of each group. :func:`fairness_excess` measures exactly what a constraint bounds, so a bound
and its measurement are comparable.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from fairacq.data.relational._relational_data import RelationalData
from fairacq.relational._evaluation import align_predictions
from fairacq.relational.inference._fairness import FairnessSpec, parse_fairness

__all__ = ["FAIRNESS_TOLERANCE", "fairness_excess", "fairness_warnings"]

#: A measured value may pass its bound by this much (the solvers' tolerance) unremarked.
FAIRNESS_TOLERANCE = 1e-4

_LABEL = {"rd": "RD", "rr": "RR", "rc": "RC", "nonparity": "non-parity"}


def fairness_excess(
    data: RelationalData, predictions: pd.DataFrame, spec: str | FairnessSpec
) -> tuple[float, float]:
    """Return the measure that ``spec`` bounds on ``predictions`` and how far it is past delta.

    ``rd``: ``p1 - p2`` (its distance is ``|RD|``); ``rr``: ``p1 / p2``; ``rc``:
    ``(1 - p1) / (1 - p2)`` (their distance is ``|value - 1|``); ``nonparity``:
    ``|mean(y_P) - mean(y_U)|``; ``p1``, ``p2`` are the protected and unprotected groups'
    mean denials ``1 - y``.

    Returns
    -------
    tuple of float
        The measured value and ``distance - delta`` (positive: the bound is not met).

    Examples
    --------
    >>> import pandas as pd
    >>> from fairacq.relational import RelationalData
    >>> users = ["a", "b", "c", "d"]
    >>> data = RelationalData(
    ...     observations={}, targets={"ok": pd.DataFrame({"u": users})},
    ...     truth={"ok": pd.DataFrame({"u": users, "value": [1.0, 0.0, 1.0, 0.0]})},
    ...     protected=pd.DataFrame({"u": users[:2]}), unprotected=pd.DataFrame({"u": users[2:]}),
    ...     metadata={"fairness_predicate": "ok"})
    >>> atoms = pd.DataFrame({"arg0": users, "value": [0.2, 0.2, 0.6, 0.6]})
    >>> [round(x, 4) for x in fairness_excess(data, atoms, "rd<=0.1")]
    [0.4, 0.3]
    """
    spec = parse_fairness(spec) if isinstance(spec, str) else spec
    table = align_predictions(data, predictions)
    y = table["prediction"].to_numpy(dtype=np.float64)
    mask = table["protected"].to_numpy(dtype=bool)
    m_p, m_u = float(y[mask].mean()), float(y[~mask].mean())
    p1, p2 = 1.0 - m_p, 1.0 - m_u
    if spec.measure == "rd":
        value, distance = p1 - p2, abs(p1 - p2)
    elif spec.measure == "nonparity":
        value = distance = abs(m_p - m_u)
    else:
        num, den = (p1, p2) if spec.measure == "rr" else (m_p, m_u)
        value = num / den if den > 0 else float("inf")
        distance = abs(value - 1.0)
    return value, distance - spec.delta


def fairness_warnings(
    data: RelationalData,
    predictions: pd.DataFrame,
    specs: Sequence[str | FairnessSpec],
    *,
    where: str = "test",
) -> list[str]:
    """Return one line per bound of ``specs`` that ``predictions`` miss by more than the tolerance.

    Examples
    --------
    >>> import pandas as pd
    >>> from fairacq.relational import RelationalData
    >>> users = ["a", "b", "c", "d"]
    >>> data = RelationalData(
    ...     observations={}, targets={"ok": pd.DataFrame({"u": users})},
    ...     truth={"ok": pd.DataFrame({"u": users, "value": [1.0, 0.0, 1.0, 0.0]})},
    ...     protected=pd.DataFrame({"u": users[:2]}), unprotected=pd.DataFrame({"u": users[2:]}),
    ...     metadata={"fairness_predicate": "ok"})
    >>> atoms = pd.DataFrame({"arg0": users, "value": [0.2, 0.2, 0.6, 0.6]})
    >>> fairness_warnings(data, atoms, ["rd<=0.1"])[0][:46]
    'test RD 0.4000 exceeds the bound 0.1 (rd<=0.1)'
    """
    out = []
    for item in specs:
        spec = parse_fairness(item) if isinstance(item, str) else item
        value, excess = fairness_excess(data, predictions, spec)
        if excess > FAIRNESS_TOLERANCE:
            label = _LABEL[spec.measure]
            bound = f"1 +/- {spec.delta:g}" if spec.measure in ("rr", "rc") else f"{spec.delta:g}"
            verb = "is outside" if spec.measure in ("rr", "rc") else "exceeds the bound"
            out.append(
                f"{where} {label} {value:.4f} {verb} {bound} ({spec}) by more than the solver "
                f"tolerance {FAIRNESS_TOLERANCE:g}: inference on the {where} atoms did not meet "
                "the constraint, so the bound does not hold there. Re-run inference with the "
                "learned rules and tight tolerances (fairacq relational infer --rules "
                "rules.psl --fair ...), or loosen the bound."
            )
    return out
