"""Non-relational baselines of Zhang & Ramesh's MovieLens tables (§5.3, Tables 12-13).

``"mf"`` is the biased matrix factorisation behind the loader's
``ratingMF`` predicate (:func:`~fairacq.relational.fit_biased_mf`, ALS), and ``"fair-mf"``
(:func:`fit_fair_mf`, Yao & Huang 2017) starts from it and minimises the same regularised
squared error plus ``lam_parity * U_par + lam_over * U_over`` on the training ratings (the
non-parity and overestimation unfairness), by full-batch Adam.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike, NDArray

from fairacq._random import RandomState, spawn_seeds
from fairacq._validation import did_you_mean
from fairacq.data.relational._relational_data import RelationalData
from fairacq.exceptions import InvalidDataError, InvalidParameterError
from fairacq.models._biased_mf import BiasedMF, fit_biased_mf

__all__ = ["MOVIELENS_BASELINES", "fit_fair_mf", "movielens_baseline"]

#: Baselines :func:`movielens_baseline` runs.
MOVIELENS_BASELINES: Mapping[str, str] = {"mf": "MF", "fair-mf": "Fair-MF"}


def _encode(values: ArrayLike) -> tuple[NDArray[np.int64], NDArray[np.str_]]:
    names, codes = np.unique(np.asarray(values).astype(str), return_inverse=True)
    return codes.astype(np.int64), names


def fit_fair_mf(
    users: ArrayLike,
    items: ArrayLike,
    ratings: ArrayLike,
    protected: ArrayLike,
    *,
    n_users: int,
    n_items: int,
    lam_parity: float = 1.0,
    lam_over: float = 1.0,
    rank: int = 10,
    reg: float = 0.03,
    n_iter: int = 15,
    n_epochs: int = 200,
    lr: float = 1e-3,
    random_state: RandomState = None,
) -> BiasedMF:
    """Fit a matrix factorisation with non-parity and overestimation regularisers (Fair-MF).

    Yao & Huang (2017, "Beyond parity") add an unfairness term to the matrix-factorisation
    objective. Here the objective is ``(1/n) [sum (r - r_hat)^2 + reg sum (|p_u|^2 + b_u^2 +
    |q_i|^2 + b_i^2)] + lam_parity * U_par + lam_over * U_over`` over the training ratings,
    with ``U_par = |E_prot[r_hat] - E_unprot[r_hat]|`` and ``U_over`` the mean over items
    rated by both groups of ``|max(0, E_prot,i[r_hat - r]) - max(0, E_unprot,i[r_hat - r])|``.
    It starts from the ALS solution of :func:`~fairacq.relational.fit_biased_mf` (the
    minimiser of the first part) and runs ``n_epochs`` full-batch Adam steps (torch, one
    thread).

    Parameters
    ----------
    users, items : array-like of int, shape (n,)
        Indices of the training ratings.
    ratings : array-like of float, shape (n,)
        Training ratings (in ``[0, 1]``).
    protected : array-like of bool, shape (n_users,)
        ``True`` for the protected users.
    n_users, n_items : int
        Index ranges.
    lam_parity, lam_over : float, default=1.0
        Strength of the two unfairness terms (0 and 0 gives plain MF).
    rank, reg, n_iter : int, float, int, default=10, 0.03, 15
        As :func:`~fairacq.relational.fit_biased_mf` (the starting point).
    n_epochs : int, default=200
        Adam steps.
    lr : float, default=1e-3
        Adam learning rate.
    random_state : int, numpy.random.Generator or None, default=None
        Seeds the ALS start.

    Returns
    -------
    BiasedMF

    Raises
    ------
    InvalidParameterError
        For a negative strength, a non-positive step count or learning rate.
    InvalidDataError
        If ``protected`` has the wrong length or a group has no rating.
    """
    _check_fair_mf_options(lam_parity, lam_over, n_epochs, lr)
    u = np.asarray(users, dtype=np.int64).reshape(-1)
    i = np.asarray(items, dtype=np.int64).reshape(-1)
    r = np.asarray(ratings, dtype=np.float64).reshape(-1)
    prot = np.asarray(protected, dtype=bool).reshape(-1)
    if prot.shape != (n_users,):
        raise InvalidDataError(
            f"fit_fair_mf: protected has {prot.size} flags; pass one per user ({n_users})."
        )
    start = fit_biased_mf(
        u, i, r, n_users=n_users, n_items=n_items, rank=rank, reg=reg, n_iter=n_iter,
        random_state=random_state,
    )  # fmt: skip
    g = prot[u]
    if g.all() or not g.any():
        raise InvalidDataError("fit_fair_mf: both groups need training ratings.")
    if n_epochs == 0 or (lam_parity == 0 and lam_over == 0):
        return start
    import torch

    torch.set_num_threads(1)
    params = [
        torch.tensor(x, dtype=torch.float64, requires_grad=True)
        for x in (start.user_bias, start.item_bias, start.user_factors, start.item_factors)
    ]
    loss = _FairMFLoss.build(u, i, r, g, n_items, reg, lam_parity, lam_over)
    opt = torch.optim.Adam(params, lr=lr)
    mu = float(start.global_mean)
    for _ in range(n_epochs):
        opt.zero_grad()
        loss(mu, *params).backward()
        opt.step()
    bu, bi, p, q = (x.detach().numpy().copy() for x in params)
    return BiasedMF(mu, bu, bi, p, q)


def _check_fair_mf_options(lam_parity: float, lam_over: float, n_epochs: int, lr: float) -> None:
    for name, value in (("lam_parity", lam_parity), ("lam_over", lam_over)):
        if not (isinstance(value, (int, float)) and np.isfinite(value) and value >= 0):
            raise InvalidParameterError(
                f"The '{name}' parameter of fit_fair_mf must be a float >= 0. Got {value!r}."
            )
    if not isinstance(n_epochs, int) or n_epochs < 0 or not (lr > 0):
        raise InvalidParameterError(
            f"fit_fair_mf: n_epochs must be an int >= 0 and lr > 0. Got {n_epochs!r}, {lr!r}."
        )


@dataclass(frozen=True)
class _FairMFLoss:
    """Fair-MF's objective on the training ratings, as torch tensors."""

    tu: Any
    ti: Any
    tr: Any
    tg: Any  # protected flag of each rating
    both: Any  # items rated by both groups
    cnt_t: Any  # each group's rating count per item (at least 1), row 1: protected
    n_items: int
    reg: float
    lam_parity: float
    lam_over: float

    @classmethod
    def build(
        cls,
        u: NDArray[np.int64],
        i: NDArray[np.int64],
        r: NDArray[np.float64],
        g: NDArray[np.bool_],
        n_items: int,
        reg: float,
        lam_parity: float,
        lam_over: float,
    ) -> _FairMFLoss:
        """Hold the ratings ``(u, i, r)`` and the protected flags ``g`` of the ratings."""
        import torch

        cnt = np.zeros((2, n_items))
        np.add.at(cnt, (g.astype(np.int64), i), 1.0)
        return cls(
            tu=torch.as_tensor(u),
            ti=torch.as_tensor(i),
            tr=torch.tensor(r, dtype=torch.float64),
            tg=torch.as_tensor(g),
            both=torch.as_tensor((cnt[0] > 0) & (cnt[1] > 0)),
            cnt_t=torch.as_tensor(np.maximum(cnt, 1.0), dtype=torch.float64),
            n_items=n_items,
            reg=reg,
            lam_parity=lam_parity,
            lam_over=lam_over,
        )

    def __call__(self, mu: float, bu: Any, bi: Any, p: Any, q: Any) -> Any:
        """Return the loss at biases ``bu``, ``bi`` and factors ``p``, ``q``."""
        import torch

        tu, ti, tg, reg = self.tu, self.ti, self.tg, self.reg
        n = float(len(self.tr))
        pred = mu + bu[tu] + bi[ti] + (p[tu] * q[ti]).sum(dim=1)
        err = pred - self.tr
        loss = (err**2).sum() / n
        loss = loss + reg * ((p[tu] ** 2).sum() + (q[ti] ** 2).sum()) / n
        loss = loss + reg * ((bu[tu] ** 2).sum() + (bi[ti] ** 2).sum()) / n
        if self.lam_parity > 0:
            loss = loss + self.lam_parity * torch.abs(pred[tg].mean() - pred[~tg].mean())
        if self.lam_over > 0:
            over = []
            for flag in (True, False):
                sel = tg if flag else ~tg
                per_item = torch.zeros(self.n_items, dtype=torch.float64).index_add(
                    0, ti[sel], err[sel]
                )
                over.append(torch.relu(per_item / self.cnt_t[int(flag)]))
            loss = loss + self.lam_over * torch.abs(over[1] - over[0])[self.both].mean()
        return loss


def movielens_baseline(
    method: Literal["mf", "fair-mf"],
    data: RelationalData,
    *,
    lam_parity: float = 1.0,
    lam_over: float = 1.0,
    fair_options: Mapping[str, Any] | None = None,
    random_state: RandomState = None,
) -> pd.DataFrame:
    """Predict the target ratings of one MovieLens fold with MF or Fair-MF.

    Both are trained on the fold's observed ratings (``data.observations["rating"]``), the
    data ``ratingMF`` was built from. ``"mf"`` returns the ``ratingMF`` atoms of the target
    pairs (the loader's ALS factorisation); ``"fair-mf"`` fits :func:`fit_fair_mf` with the
    loader's MF settings (``data.metadata["mf"]``).

    Parameters
    ----------
    method : {"mf", "fair-mf"}
    data : RelationalData
        From :func:`~fairacq.relational.load_movielens_relational` (``split="test"``).
    lam_parity, lam_over : float, default=1.0
        Fair-MF strengths.
    fair_options : mapping or None, default=None
        More keyword arguments of :func:`fit_fair_mf` (``n_epochs``, ``lr``).
    random_state : int, numpy.random.Generator or None, default=None
        Seeds the factorisation.

    Returns
    -------
    pandas.DataFrame
        ``user``, ``item``, ``value`` (clipped to ``[0, 1]``), one row per target rating.

    Raises
    ------
    UnknownNameError
        For an unknown method.
    InvalidDataError
        If the data lack ``rating``, ``ratingMF`` or ``female``.
    """
    if method not in MOVIELENS_BASELINES:
        raise did_you_mean(
            "MovieLens baseline",
            method,
            MOVIELENS_BASELINES,
            "fairacq.relational.MOVIELENS_BASELINES",
        )
    need = [p for p in ("rating", "ratingMF", "female") if p not in data.observations]
    if need or "rating" not in data.targets:
        raise InvalidDataError(
            f"movielens_baseline: the data lack {need or ['rating targets']}. Load a fold with "
            "load_movielens_relational."
        )
    targets = data.targets["rating"][["user", "item"]].astype(str).reset_index(drop=True)
    if method == "mf":
        mf = data.observations["ratingMF"]
        key = mf["user"].astype(str) + "\t" + mf["item"].astype(str)
        lookup = pd.Series(mf["value"].to_numpy(dtype=np.float64), index=key)
        value = lookup.reindex(targets["user"] + "\t" + targets["item"]).to_numpy()
        if np.isnan(value).any():
            raise InvalidDataError("movielens_baseline: some target pairs have no ratingMF atom.")
        return targets.assign(value=np.clip(value, 0.0, 1.0))
    obs = data.observations["rating"]
    female = data.observations["female"]
    all_users = np.union1d(
        female["user"].astype(str).to_numpy(), targets["user"].to_numpy()
    ).astype(str)
    u_obs = np.searchsorted(all_users, obs["user"].astype(str).to_numpy())
    u_tgt = np.searchsorted(all_users, targets["user"].to_numpy())
    i_codes, item_names = _encode(
        np.concatenate([obs["item"].astype(str).to_numpy(), targets["item"].to_numpy()])
    )
    i_obs, i_tgt = i_codes[: len(obs)], i_codes[len(obs) :]
    flags = female.set_index(female["user"].astype(str))["value"].reindex(all_users)
    prot = flags.fillna(0.0).to_numpy(dtype=np.float64) >= 0.5
    mf_opts = dict(data.metadata.get("mf", {}))
    options: dict[str, Any] = {
        "rank": int(mf_opts.get("rank", 10)),
        "reg": float(mf_opts.get("reg", 0.03)),
        "n_iter": int(mf_opts.get("n_iter", 15)),
    }
    options.update(fair_options or {})
    (seed,) = spawn_seeds(random_state, 1)
    model = fit_fair_mf(
        u_obs,
        i_obs,
        obs["value"].to_numpy(dtype=np.float64),
        prot,
        n_users=len(all_users),
        n_items=len(item_names),
        lam_parity=lam_parity,
        lam_over=lam_over,
        random_state=seed,
        **options,
    )
    value = np.clip(model.predict(u_tgt, i_tgt), 0.0, 1.0)
    return targets.assign(value=value)
