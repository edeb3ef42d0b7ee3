"""DataSift's scaled-up Adult (Hasan & Pradhan, §4.5): a dataset grown to up to 10^6 rows."""

from __future__ import annotations

import numpy as np
import pandas as pd

from fairacq._random import RandomState, as_generator
from fairacq._validation import Interval, validate_parameter_constraints
from fairacq.data._dataset import FairDataset
from fairacq.exceptions import InvalidDataError, InvalidParameterError

__all__ = ["make_scaled_adult"]


def make_scaled_adult(
    base: FairDataset,
    n_rows: int,
    *,
    noise: float = 0.05,
    random_state: RandomState = None,
) -> FairDataset:
    """Grow ``base`` to ``n_rows`` rows with synthetic rows resembling its own.

    Implements the data of DataSift's scalability study (Hasan & Pradhan, §4.5):
    "Using the AdultIncome dataset, we synthetically generate additional data points to control
    the dataset size, which ranges from the original size up to 10^6 data points." The paper
    does not say how; fairacq keeps every original row and appends ``n_rows - len(base)`` rows,
    each a copy of a uniformly drawn original row (label and sensitive values included) with
    small Gaussian noise on its numeric columns:

    - a column that takes more than two values gets noise of standard deviation
      ``noise * std(column)``, is clipped to the column's observed range, and is rounded when
      all its original values are integers (age, hours per week, integer codes);
    - binary columns and every column of a multi-column feature group (one-hot blocks) are
      copied unchanged, so one-hot blocks stay valid.

    The work is vectorised: 10^6 rows take a few seconds (see ``docs/paper-notes/data.md``).

    Parameters
    ----------
    base : FairDataset
        The dataset to grow, normally Adult (any :class:`FairDataset` works).
    n_rows : int
        Size of the result, at least ``len(base)``.
    noise : float, default=0.05
        Noise scale as a fraction of each numeric column's standard deviation; 0 gives exact
        copies.
    random_state : int, numpy.random.Generator or None, default=None
        Controls which rows are copied and the noise.

    Returns
    -------
    FairDataset
        ``base``'s rows first, then the synthetic ones; same columns, groups, feature groups,
        privileged group and name (suffixed ``"-scaled"``), metadata extended with
        ``scaled_from``, ``n_original`` and ``noise``.

    Raises
    ------
    InvalidParameterError
        If ``n_rows < len(base)`` or ``noise`` is negative.
    InvalidDataError
        If ``base`` is not a :class:`FairDataset`.

    Examples
    --------
    >>> from fairacq.data._toy import load_toy
    >>> toy = load_toy(100)
    >>> big = make_scaled_adult(toy, 1000, random_state=0)
    >>> len(big), big.feature_names == toy.feature_names, big.group_names == toy.group_names
    (1000, True, True)
    """
    if not isinstance(base, FairDataset):
        raise InvalidDataError(
            f"make_scaled_adult: base must be a FairDataset, got {type(base).__name__}. "
            "Load Adult first (fairacq.data.load_adult) or build a FairDataset."
        )
    validate_parameter_constraints(
        {
            "n_rows": [Interval(int, len(base), None, closed="left")],
            "noise": [Interval(float, 0, None, closed="left")],
        },
        {"n_rows": n_rows, "noise": noise},
        "make_scaled_adult",
    )
    if len(base) == 0:
        raise InvalidParameterError("make_scaled_adult: base is empty. Pass a non-empty dataset.")
    rng = as_generator(random_state)
    n_base = len(base)
    n_new = int(n_rows) - n_base
    X = base.X
    source = rng.integers(0, n_base, size=n_new)
    one_hot = {c for cols in base.feature_groups.values() if len(cols) > 1 for c in cols}
    # Fortran order: one contiguous block per column, which pandas adopts without copying
    out = np.empty((int(n_rows), X.shape[1]), dtype=np.float64, order="F")
    for j, col in enumerate(X.columns):
        values = X[col].to_numpy(dtype=np.float64)
        out[:n_base, j] = values
        column = out[n_base:, j]
        np.take(values, source, out=column)
        if noise == 0 or n_new == 0 or str(col) in one_hot or np.isin(values, (0.0, 1.0)).all():
            continue
        std = float(values.std())
        if std == 0.0:
            continue
        column += rng.normal(0.0, noise * std, size=n_new)
        np.clip(column, values.min(), values.max(), out=column)
        if np.array_equal(values, np.round(values)):
            np.round(column, out=column)
    X_all = pd.DataFrame(out, columns=X.columns, copy=False)
    index = np.concatenate([np.arange(len(base)), source])
    metadata = base.metadata
    metadata.update(
        {
            "scaled_from": base.name,
            "n_original": len(base),
            "noise": float(noise),
            "scaling": "Hasan & Pradhan §4.5; resampled rows with small noise on numeric columns",
        }
    )
    return FairDataset(
        X_all,
        base.y[index],
        base.sensitive.iloc[index].reset_index(drop=True),
        sensitive_attrs=list(base.sensitive_attrs),
        feature_groups=base.feature_groups,
        privileged=base.privileged,
        name=f"{base.name}-scaled",
        metadata=metadata,
    )
