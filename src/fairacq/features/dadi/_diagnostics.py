"""What a finished DADI run should tell its user: results that are not what was asked.

Two findings make a run's numbers misleading without any error: a classifier that predicts
one class for every row (its disparity is then 0 by construction, which says nothing about
fairness), and exploration that had not decayed when training ended (epsilon still near 1,
so the agent mostly acted at random and its policy is barely trained). :class:`DADI` records
them in ``warnings_``; :func:`fairacq.features.train_dadi` emits them as
:class:`~fairacq.exceptions.ResultWarning` and the CLI prints them and writes them into
``summary.json``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import ArrayLike

if TYPE_CHECKING:
    from fairacq.features.dadi._qlearning import JointConfig

__all__ = ["ONE_CLASS", "exploration_warning", "one_class_warning"]

#: How every one-class warning starts (so a caller can tell them apart).
ONE_CLASS = "one-class classifier:"


def one_class_warning(
    decisions: ArrayLike, rows: str, *, disparity: float | None = None
) -> str | None:
    """Return a warning if ``decisions`` hold one class only, else None.

    Parameters
    ----------
    decisions : array-like of 0/1
        The classifier's decisions on some rows.
    rows : str
        Which rows, e.g. ``"validation"`` or ``"test"``.
    disparity : float or None, default=None
        The reported disparity of these decisions, quoted in the message.

    Examples
    --------
    >>> one_class_warning([0, 0, 0], "test", disparity=0.0)[:60]
    'one-class classifier: the classifier predicts 0 for all 3 te'
    >>> one_class_warning([0, 1], "test") is None
    True
    """
    values = np.unique(np.asarray(decisions).reshape(-1))
    if values.size != 1:
        return None
    n = int(np.asarray(decisions).size)
    quoted = "" if disparity is None else f" of {disparity:.3f}"
    return (
        f"{ONE_CLASS} the classifier predicts {int(values[0])} for all {n} {rows} rows, so "
        f"its disparity{quoted} and any other fairness number of its decisions are "
        "meaningless. Train longer (more pre-training and joint iterations, e.g. --preset "
        "full) or check how rare the label's minority class is."
    )


def exploration_warning(config: JointConfig, n_iter: int) -> str | None:
    """Return a warning if epsilon had not reached its end value after ``n_iter`` iterations.

    Parameters
    ----------
    config : JointConfig
        The joint phase's settings (the epsilon schedule).
    n_iter : int
        Joint iterations run; 0 (a pre-training alone) gives no warning.

    Examples
    --------
    >>> from fairacq.features.dadi._qlearning import JointConfig
    >>> print(exploration_warning(JointConfig(gamma=0.5, reward="gnl1"), 150)[:47])
    exploration not decayed: epsilon is still 0.973
    >>> exploration_warning(JointConfig(gamma=0.5, reward="gnl1"), 5000) is None
    True
    """
    last = config.epsilon(n_iter)
    if n_iter <= 0 or abs(last - config.epsilon_end) <= 1e-9:
        return None
    decay = config.epsilon_decay_iter
    return (
        f"exploration not decayed: epsilon is still {last:.3f} at the end of training, "
        f"after {n_iter} joint iterations (it goes from {config.epsilon_start:g} to "
        f"{config.epsilon_end:g} over {decay}), so the agent mostly acted at random and its "
        f"policy is barely trained. Use at least {decay} iterations (n_train_iter; CLI "
        "--train-iter or --preset full) or a smaller epsilon_decay_iter."
    )
