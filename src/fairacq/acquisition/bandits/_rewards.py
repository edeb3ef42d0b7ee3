"""Full-feedback reward sharing of DataSift's bandit (Hasan & Pradhan, §3.2, eq. 1).

After evaluating a batch from the chosen partition ``C_i``, every partition ``C_j`` receives
a share of the fairness change ``ΔF``. DataSift's eq. (1) shrinks the share with the
partition's own base-rate gap and with its centroid distance to ``C_i``::

    r_j = ΔF / ((1 + |ΔBR_{C_j}|) * (1 + dist(C_i, C_j)))

§4.4 (Fig. 7d) compares it with a distance-only reward (AutoData's, Chai et al. 2022) and a
base-rate-only reward; all three are here. ``ΔF`` is an *improvement*: positive when the new
model is fairer ("an improvement in fairness (ΔF > 0) incurs a reward"); the acquirer passes
``|F_before| - |F_after|``. Pure numpy, no state.
"""

from __future__ import annotations

from typing import Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray

from fairacq._validation import did_you_mean
from fairacq.exceptions import InvalidDataError, InvalidParameterError

__all__ = ["REWARD_KINDS", "reward_per_cost", "share_reward"]

#: The reward-sharing rules of Hasan & Pradhan, §4.4 (Fig. 7d).
REWARD_KINDS: tuple[str, ...] = ("base_rate", "datasift", "distance")

RewardKind = Literal["datasift", "distance", "base_rate"]


def share_reward(
    delta_f: float,
    chosen: int,
    distances: ArrayLike,
    base_rate_diffs: ArrayLike | None,
    *,
    kind: RewardKind = "datasift",
) -> NDArray[np.float64]:
    """Share one round's fairness improvement among all partitions (full feedback).

    Implements eq. (1) of Hasan & Pradhan (§3.2) and the two alternatives of its ablation (§4.4,
    Fig. 7d):

    - ``"datasift"`` (eq. 1): ``r_j = ΔF / ((1 + |ΔBR_j|) (1 + dist(C_i, C_j)))``.
    - ``"distance"`` (AutoData-style, distance-centric): ``r_j = ΔF / (1 + dist(C_i, C_j))``.
      Chai et al. 2022 is not available here; following §3.2 ("studies ... consider the
      distance between partitions when assigning rewards") and §4.4 ("AutoData designed a
      distance-centric reward"), this is eq. (1) without the base-rate factor, with AutoData's
      accuracy signal replaced by the fairness improvement as the paper did (§4.1.2).
    - ``"base_rate"``: ``r_j = ΔF / (1 + |ΔBR_j|)``.

    Parameters
    ----------
    delta_f : float
        Fairness *improvement* of the round: positive when the model got fairer (a reward),
        negative when it got less fair (a penalty). Pass ``|F_before| - |F_after|``.
    chosen : int
        Index ``i`` of the partition whose batch was evaluated.
    distances : array-like of shape (g, g)
        Normalised centroid distances (:meth:`Partitioning.normalised_distances`).
    base_rate_diffs : array-like of shape (g,) or None
        Intra-partition base-rate differences (:func:`partition_base_rate_diffs`); only the
        absolute value is used. May be ``None`` for ``kind="distance"``.
    kind : {"datasift", "distance", "base_rate"}, default="datasift"
        Sharing rule (above).

    Returns
    -------
    ndarray of float, shape (g,)
        ``r_j`` for every partition; same sign as ``delta_f``.

    Raises
    ------
    UnknownNameError
        For an unknown ``kind``.
    InvalidDataError
        For a non-square or negative distance matrix, base-rate differences of another
        length, or non-finite inputs.
    InvalidParameterError
        For ``chosen`` outside ``0 .. g-1`` or a non-finite ``delta_f``.

    Examples
    --------
    >>> dist = np.array([[0.0, 1.0], [1.0, 0.0]])
    >>> share_reward(0.06, 0, dist, [0.2, 0.5]).tolist()
    [0.05, 0.02]
    """
    where = "share_reward"
    if kind not in REWARD_KINDS:
        raise did_you_mean("reward kind", str(kind), REWARD_KINDS, "fairacq.acquisition")
    dist = np.asarray(distances, dtype=np.float64)
    if dist.ndim != 2 or dist.shape[0] != dist.shape[1] or dist.shape[0] == 0:
        raise InvalidDataError(
            f"{where}: distances must be a square (g, g) matrix. Got shape {dist.shape}. "
            "Pass Partitioning.normalised_distances()."
        )
    if not np.isfinite(dist).all() or (dist < 0).any():
        raise InvalidDataError(
            f"{where}: distances must be finite and >= 0. Pass "
            "Partitioning.normalised_distances()."
        )
    g = dist.shape[0]
    if isinstance(chosen, bool) or not isinstance(chosen, (int, np.integer)):
        raise InvalidParameterError(
            f"{where}: chosen must be an int partition index. Got {chosen!r}."
        )
    if not 0 <= int(chosen) < g:
        raise InvalidParameterError(
            f"{where}: chosen={chosen} is not a partition index (0 .. {g - 1}). Pass the "
            "index the policy selected."
        )
    df = float(delta_f)
    if not np.isfinite(df):
        raise InvalidParameterError(
            f"{where}: delta_f must be a finite number. Got {delta_f!r}. Check the fairness "
            "measurements of the round."
        )
    denom = np.ones(g, dtype=np.float64)
    if kind in ("datasift", "distance"):
        denom *= 1.0 + dist[int(chosen)]
    if kind in ("datasift", "base_rate"):
        if base_rate_diffs is None:
            raise InvalidDataError(
                f"{where}: kind={kind!r} needs base_rate_diffs. Got None. Pass "
                "partition_base_rate_diffs(...), or use kind='distance'."
            )
        br = np.asarray(base_rate_diffs, dtype=np.float64)
        if br.shape != (g,) or not np.isfinite(br).all():
            raise InvalidDataError(
                f"{where}: base_rate_diffs must hold {g} finite values (one per partition). "
                f"Got shape {br.shape}."
            )
        denom *= 1.0 + np.abs(br)
    out: NDArray[np.float64] = df / denom
    return out


def reward_per_cost(r: ArrayLike, batch_cost: ArrayLike) -> NDArray[np.float64]:
    """Return rewards per unit acquisition cost, ``r / batch_cost``.

    A cost-aware variant of eq. (1) of Hasan & Pradhan (its future work, §6): a batch that buys the
    same fairness improvement for less money earns more. With a uniform cost of one per batch
    the rewards are unchanged, which reproduces the paper.

    Parameters
    ----------
    r : array-like of float
        Shared rewards (:func:`share_reward`).
    batch_cost : float or array-like of float
        Cost of the evaluated batch (> 0), or one cost per entry of ``r``.

    Returns
    -------
    ndarray of float, the shape of ``r``

    Raises
    ------
    InvalidDataError
        If a cost is not finite and positive, or costs and rewards do not broadcast.

    Examples
    --------
    >>> reward_per_cost([0.2, -0.1], 4.0).tolist()
    [0.05, -0.025]
    """
    where = "reward_per_cost"
    rr = np.asarray(r, dtype=np.float64)
    cost = np.asarray(batch_cost, dtype=np.float64)
    if not np.isfinite(cost).all() or (cost <= 0).any():
        raise InvalidDataError(
            f"{where}: batch_cost must be finite and > 0. Got {batch_cost!r}. Give every "
            "row a positive cost."
        )
    try:
        out = np.broadcast_to(rr / cost, rr.shape)
    except ValueError as exc:
        raise InvalidDataError(
            f"{where}: batch_cost of shape {cost.shape} does not match rewards of shape "
            f"{rr.shape}. Pass one cost, or one per reward."
        ) from exc
    return np.array(out, dtype=np.float64)
