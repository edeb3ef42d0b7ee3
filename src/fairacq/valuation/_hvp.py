"""Inverse Hessian-vector products: damped Cholesky, conjugate gradient and LiSSA.

Influence functions (Hasan & Pradhan, eq. 4) need ``s = H^{-1} g`` for one vector ``g`` (the
gradient of the fairness surrogate). Three solvers:

- :func:`cholesky_solve` factorises a dense Hessian (exact; logistic regression, or any
  model small enough to materialise ``H``);
- :func:`conjugate_gradient` needs only Hessian-vector products (Koh & Liang 2017, §3);
- :func:`lissa` is the stochastic Neumann-series estimator of Agarwal et al. (2017) that Koh
  & Liang also use.

Damping ``lambda I`` is added to ``H`` only when asked, or when ``H + lambda I`` turns out
not to be positive definite (a failed Cholesky, a direction of non-positive curvature in CG,
a diverging LiSSA recursion). Non-convex objectives (the MLP) need it; every solver returns
the damping it ended up using so that it can be reported.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import scipy.linalg
from numpy.typing import NDArray

from fairacq.exceptions import InvalidDataError

if TYPE_CHECKING:
    import torch

__all__ = ["SolveResult", "cholesky_solve", "conjugate_gradient", "dense_hessian", "lissa"]

_MAX_DAMPING_STEPS = 30


@dataclass(frozen=True, eq=False)
class SolveResult:
    """The outcome of an iterative inverse-Hessian-vector solve.

    Attributes
    ----------
    x : torch.Tensor
        The approximate solution of ``(H + damping I) x = b``.
    damping : float
        The damping used for ``x``.
    iterations : int
        Hessian-vector products spent, over all restarts.
    residual : float
        ``||b - (H + damping I) x|| / ||b||`` as tracked by the solver (CG), or the relative
        size of the last update (LiSSA).
    """

    x: torch.Tensor
    damping: float
    iterations: int
    residual: float


def cholesky_solve(
    H: NDArray[np.float64], b: NDArray[np.float64], *, damping: float = 0.0
) -> tuple[NDArray[np.float64], float]:
    """Solve ``(H + lambda I) x = b`` by Cholesky, raising ``lambda`` only if needed.

    Parameters
    ----------
    H : ndarray of shape (p, p)
        Symmetric Hessian.
    b : ndarray of shape (p,)
        Right-hand side.
    damping : float, default=0.0
        Initial ``lambda``. If ``H + lambda I`` is not positive definite, ``lambda`` becomes
        ``max(lambda, 2 * max(-mu_min, 0))`` plus ``1e-10`` times the mean absolute diagonal
        of ``H``, with ``mu_min`` the smallest eigenvalue of ``H`` (the same rule as
        :func:`conjugate_gradient`'s), and grows tenfold if the factorisation still fails.

    Returns
    -------
    x : ndarray of shape (p,)
    damping : float
        The ``lambda`` used.

    Raises
    ------
    InvalidDataError
        If ``H`` holds non-finite values, or ``H + lambda I`` stays indefinite after 30
        tenfold increases of ``lambda``.
    """
    if not np.all(np.isfinite(H)):
        raise InvalidDataError(
            "cholesky_solve: the Hessian holds NaN or infinite values. Check the training "
            "data for extreme values and that the model converged."
        )
    scale = float(np.mean(np.abs(np.diag(H)))) or 1.0
    lam = float(damping)
    eye = np.eye(H.shape[0], dtype=np.float64)
    for attempt in range(_MAX_DAMPING_STEPS):
        try:
            factor = scipy.linalg.cho_factor(H + lam * eye, lower=True, check_finite=False)
        except np.linalg.LinAlgError:
            if attempt == 0:
                lowest = float(scipy.linalg.eigvalsh(H, subset_by_index=[0, 0])[0])
                lam = max(lam, 2.0 * max(-lowest, 0.0)) + 1e-10 * scale
            else:
                lam *= 10.0
            continue
        x: NDArray[np.float64] = scipy.linalg.cho_solve(factor, b, check_finite=False)
        return x, lam
    raise InvalidDataError(
        f"cholesky_solve: the Hessian is not positive definite even with damping {lam:.3g}. "
        "Check that the model converged, or pass a larger damping."
    )


def conjugate_gradient(
    hvp: Callable[[torch.Tensor], torch.Tensor],
    b: torch.Tensor,
    *,
    damping: float = 0.0,
    tol: float = 1e-10,
    max_iter: int = 1000,
) -> SolveResult:
    """Solve ``(H + lambda I) x = b`` with conjugate gradient on Hessian-vector products.

    When CG meets a direction ``v`` of non-positive curvature (``v^T (H + lambda I) v <= 0``,
    possible for the non-convex MLP objective), ``H`` has an eigenvalue below
    ``-lambda + v^T (H + lambda I) v / v^T v``; ``lambda`` is raised to twice that bound's size (at
    least ``1e-8`` times the Rayleigh quotient of ``b``) and CG restarts from zero.

    Parameters
    ----------
    hvp : callable
        ``v -> H v`` (undamped).
    b : torch.Tensor of shape (p,)
        Right-hand side (float64).
    damping : float, default=0.0
        Initial ``lambda``.
    tol : float, default=1e-10
        Stop when ``||r|| <= tol * ||b||``.
    max_iter : int, default=1000
        Most CG steps per (re)start.

    Returns
    -------
    SolveResult
    """
    bnorm = float(b.norm())
    if bnorm == 0.0:
        return SolveResult(b.clone(), float(damping), 0, 0.0)
    lam = float(damping)
    spent = 1
    floor = 1e-8 * (abs(float(b @ hvp(b))) / bnorm**2 or 1.0)
    residual = 1.0
    for _ in range(_MAX_DAMPING_STEPS):
        x = b.new_zeros(b.shape)
        r = b.clone()
        d = r.clone()
        rs = float(r @ r)
        negative: float | None = None
        for _ in range(max_iter):
            Hd = hvp(d) + lam * d
            spent += 1
            curvature = float(d @ Hd)
            if curvature <= 0.0:
                negative = curvature / float(d @ d)
                break
            alpha = rs / curvature
            x = x + alpha * d
            r = r - alpha * Hd
            rs_new = float(r @ r)
            residual = rs_new**0.5 / bnorm
            if residual <= tol:
                break
            d = r + (rs_new / rs) * d
            rs = rs_new
        if negative is None:
            return SolveResult(x, lam, spent, residual)
        lam = max(2.0 * (lam + abs(negative)), floor)
    raise InvalidDataError(
        f"conjugate_gradient: the Hessian kept showing negative curvature up to damping "
        f"{lam:.3g}. Check that the model converged, or pass a larger damping."
    )


def lissa(
    hvp: Callable[[torch.Tensor, NDArray[np.int64] | None], torch.Tensor],
    b: torch.Tensor,
    n_rows: int,
    *,
    rng: np.random.Generator,
    damping: float = 0.0,
    depth: int = 10_000,
    batch_size: int = 512,
    tol: float = 1e-10,
) -> SolveResult:
    """Estimate ``(H + lambda I)^{-1} b`` by the LiSSA recursion (Agarwal et al. 2017).

    ``h_0 = b``, ``h_j = b + h_{j-1} - (H_j + lambda I) h_{j-1} / scale`` and
    ``x = h_J / scale``, where ``H_j`` is the Hessian on a random mini-batch of training rows
    (scaled to the full sum) and ``scale`` is 1.5 times the largest eigenvalue of ``H +
    lambda I`` (30 power iterations), so that the recursion contracts. With full batches
    the recursion is deterministic and stops when ``||h_j - h_{j-1}|| <= tol ||h_j||``. If it
    diverges (negative curvature larger than the damping), ``lambda`` grows tenfold (at
    least ``1e-3 * scale``) and it restarts.

    Parameters
    ----------
    hvp : callable
        ``(v, rows) -> H v`` with the loss summed over ``rows`` scaled to all rows
        (``rows=None``: the full training set).
    b : torch.Tensor of shape (p,)
        Right-hand side (float64).
    n_rows : int
        Number of training rows.
    rng : numpy.random.Generator
        Draws the mini-batches.
    damping : float, default=0.0
        Initial ``lambda``.
    depth : int, default=10000
        Most recursion steps.
    batch_size : int, default=512
        Rows per mini-batch; the full set when ``n_rows <= batch_size``.
    tol : float, default=1e-10
        Relative-update stopping tolerance (full batches only).

    Returns
    -------
    SolveResult
    """
    bnorm = float(b.norm())
    if bnorm == 0.0:
        return SolveResult(b.clone(), float(damping), 0, 0.0)
    lam = float(damping)
    v = b / bnorm
    top = 0.0
    for _ in range(30):
        w = hvp(v, None)
        top = float(v @ w)
        v = w / (float(w.norm()) or 1.0)
    spent = 30
    full = n_rows <= batch_size
    for _ in range(_MAX_DAMPING_STEPS):
        scale = 1.5 * (abs(top) + lam) or 1.0
        h = b.clone()
        change = 1.0
        diverged = False
        for _ in range(depth):
            rows = None if full else rng.choice(n_rows, size=batch_size, replace=False)
            h_new = b + h - (hvp(h, rows) + lam * h) / scale
            spent += 1
            hnorm = float(h_new.norm())
            if not np.isfinite(hnorm) or hnorm > 1e12 * bnorm:
                diverged = True
                break
            change = float((h_new - h).norm()) / (hnorm or 1.0)
            h = h_new
            if full and change <= tol:
                break
        if not diverged:
            return SolveResult(h / scale, lam, spent, change)
        lam = max(10.0 * lam, 1e-3 * abs(top) or 1e-3)
    raise InvalidDataError(
        f"lissa: the recursion diverged up to damping {lam:.3g}. Check that the model "
        "converged, or pass a larger damping, or use solver='cg'."
    )


def dense_hessian(
    hvp: Callable[[torch.Tensor], torch.Tensor], n_params: int, *, chunk: int = 64
) -> NDArray[np.float64]:
    """Materialise the Hessian column block by column block from batched HVPs.

    Parameters
    ----------
    hvp : callable
        ``V -> V H`` for a batch ``V`` of shape (k, p) (e.g. batched double backward with
        ``torch.autograd.grad(..., is_grads_batched=True)``).
    n_params : int
        ``p``.
    chunk : int, default=64
        Columns per batch.

    Returns
    -------
    ndarray of shape (p, p)
        The symmetrised Hessian ``(H + H^T) / 2``.
    """
    from fairacq._deps import require

    torch_module = require("torch", purpose="influence functions of torch models")
    eye = torch_module.eye(n_params, dtype=torch_module.float64)
    blocks = [hvp(eye[i : i + chunk]) for i in range(0, n_params, chunk)]
    H = torch_module.cat(blocks, dim=0).detach().numpy().astype(np.float64)
    out: NDArray[np.float64] = 0.5 * (H + H.T)
    return out
