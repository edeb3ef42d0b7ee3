"""The autograd side of influence functions: gradients, Hessian-vector products, solves.

:class:`AutogradInfluence` holds a torch model at its fitted parameters ``theta`` and the
training rows. It gives the gradient of the training objective (kept in the graph, so that
its own gradient is a Hessian-vector product), solves ``(H + damping I) x = rhs`` with the
chosen solver, and takes the inner product of ``x`` with every row's loss gradient in one
pass.

Reverse mode only (double backward for Hessian-vector products and for the per-row
directional derivatives): torch's forward mode imports TorchScript decompositions that emit
a DeprecationWarning in recent torch versions.
"""

from __future__ import annotations

from types import ModuleType
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from fairacq._random import RandomState, as_generator
from fairacq.valuation._hvp import (
    SolveResult,
    cholesky_solve,
    conjugate_gradient,
    dense_hessian,
    lissa,
)

if TYPE_CHECKING:
    import torch

    from fairacq.valuation._torch_models import TorchModel

__all__ = ["AutogradInfluence"]

_CG_TOL = 1e-10
_CG_MAX_ITER = 1000
_LISSA_DEPTH = 10_000
_LISSA_BATCH = 512


class AutogradInfluence:
    """A fitted model's training objective, linearised at its fitted parameters by autograd.

    Parameters
    ----------
    t : module
        torch.
    tm : TorchModel
        The fitted classifier as torch functions of one parameter vector.
    Z_tr : numpy.ndarray of shape (n, d)
        Training rows in the classifier's feature space.
    y_tr : numpy.ndarray of shape (n,)
        Their 0/1 labels.
    kind : {"exact", "cg", "lissa"}
        The inverse-Hessian-vector solver.
    random_state : int, numpy.random.Generator or None
        Draws LiSSA's mini-batches (a fresh generator per solve, as before).
    """

    def __init__(
        self,
        t: ModuleType,
        tm: TorchModel,
        Z_tr: NDArray[np.float64],
        y_tr: NDArray[np.int64],
        kind: str,
        random_state: RandomState,
    ) -> None:
        self.t, self.tm, self.kind, self.random_state = t, tm, kind, random_state
        self.theta = tm.theta0.detach().clone().requires_grad_(True)
        self.Ztr = t.from_numpy(Z_tr)
        self.ytr = t.from_numpy(y_tr.astype(np.float64))
        self.n = Z_tr.shape[0]
        self.H: NDArray[np.float64] | None = None

    def linearise(self) -> None:
        """Build the graphs of the objective's gradient and of every row's loss gradient.

        ``jtu`` is ``J^T u`` for a dummy cotangent ``u``: linear in ``u``, so its gradient
        with respect to ``u`` along ``s`` is ``J s``, every row's ``grad loss_d . s`` at once
        (the double-backward trick).
        """
        t = self.t
        self.grad_j = self.gradient(None)
        losses = self.tm.losses(self.theta, self.Ztr, self.ytr)
        self.u = t.zeros_like(losses, requires_grad=True)
        (self.jtu,) = t.autograd.grad(losses, self.theta, grad_outputs=self.u, create_graph=True)

    def gradient(self, rows: NDArray[np.int64] | None) -> torch.Tensor:
        """Gradient of the training objective (on ``rows`` scaled to all rows), with graph."""
        t, tm, theta = self.t, self.tm, self.theta
        if rows is None:
            total = tm.penalty(theta) + tm.losses(theta, self.Ztr, self.ytr).sum()
        else:
            idx = t.from_numpy(np.asarray(rows, dtype=np.int64))
            batch = tm.losses(theta, self.Ztr[idx], self.ytr[idx]).sum()
            total = tm.penalty(theta) + (self.n / len(rows)) * batch
        g: torch.Tensor = t.autograd.grad(total, theta, create_graph=True)[0]
        return g

    def hvp(self, v: torch.Tensor) -> torch.Tensor:
        """``H v`` on all rows."""
        out: torch.Tensor = self.t.autograd.grad(
            self.grad_j, self.theta, grad_outputs=v, retain_graph=True
        )[0]
        return out.detach()

    def _hvp_batch(self, V: torch.Tensor) -> torch.Tensor:
        out: torch.Tensor = self.t.autograd.grad(
            self.grad_j, self.theta, grad_outputs=V, retain_graph=True, is_grads_batched=True
        )[0]
        return out.detach()

    def _hvp_rows(self, v: torch.Tensor, rows: NDArray[np.int64] | None) -> torch.Tensor:
        if rows is None:
            return self.hvp(v)
        out: torch.Tensor = self.t.autograd.grad(self.gradient(rows), self.theta, grad_outputs=v)[
            0
        ]
        return out.detach()

    def solve(self, rhs: torch.Tensor, damp: float) -> tuple[torch.Tensor, float, int, float]:
        """``(H + damp I)^{-1} rhs`` by the chosen solver; damping raised only if needed.

        Returns the solution, the damping used, the iterations and the residual.
        """
        if self.kind == "exact":
            if self.H is None:
                self.H = dense_hessian(self._hvp_batch, self.tm.n_params)
            s_np, used = cholesky_solve(self.H, rhs.detach().numpy(), damping=damp)
            return self.t.from_numpy(s_np), used, 0, 0.0
        res: SolveResult
        if self.kind == "cg":
            res = conjugate_gradient(
                self.hvp, rhs, damping=damp, tol=_CG_TOL, max_iter=_CG_MAX_ITER
            )
        else:
            res = lissa(
                self._hvp_rows,
                rhs,
                self.n,
                rng=as_generator(self.random_state),
                damping=damp,
                depth=_LISSA_DEPTH,
                batch_size=_LISSA_BATCH,
            )
        return res.x, res.damping, res.iterations, res.residual

    def row_values(self, s: torch.Tensor) -> NDArray[np.float64]:
        """``-grad loss_d . s`` for every training row ``d``."""
        (directional,) = self.t.autograd.grad(
            self.jtu, self.u, grad_outputs=s.detach(), retain_graph=True
        )
        out: NDArray[np.float64] = -directional.detach().numpy().astype(np.float64)
        return out

    def validation_loss_gradient(self, Zv: torch.Tensor, y_val: Any) -> torch.Tensor:
        """Gradient of the mean log-loss of the predicted probabilities on validation rows."""
        t, theta = self.t, self.theta
        yv = t.from_numpy(np.asarray(y_val, dtype=np.float64))
        p = self.tm.scores(theta, Zv).clamp(1e-12, 1.0 - 1e-12)
        val_loss = -(yv * t.log(p) + (1.0 - yv) * t.log(1.0 - p)).mean()
        grad_loss: torch.Tensor = t.autograd.grad(val_loss, theta)[0]
        return grad_loss
