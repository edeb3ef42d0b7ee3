"""MinimaxFair's regulator as a sampling rule (Diana et al., AIES 2021, §3, Algorithm 1)."""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
from numpy.typing import NDArray

from fairacq._random import RandomState
from fairacq._typing import LearnerLike
from fairacq._validation import Interval
from fairacq.sampling.loop._base import GroupSampler, SamplerState

__all__ = ["MinimaxFairSampler", "exponentiated_update", "regulator_step_size"]


def regulator_step_size(t: int, eta0: float, power: float) -> float:
    """Return the regulator's step size ``eta_t = eta0 * t ** -power`` (``t`` from 1).

    Diana et al.'s code writes it ``a * t ** (-b)`` with ``a = 1``, ``b = 1/2`` by default
    (``a`` divided by the largest squared label, 1 for 0/1 labels).

    Examples
    --------
    >>> regulator_step_size(4, 1.0, 0.5)
    0.5
    """
    return float(eta0 * float(t) ** (-power))


def exponentiated_update(
    weights: NDArray[np.float64], losses: NDArray[np.float64], eta: float
) -> NDArray[np.float64]:
    """Return the regulator's weights after one exponentiated-gradient step (§3, Algorithm 1).

    ``w_g <- w_g * exp(eta * L_g)``, renormalised to sum to one: groups with a larger loss
    gain weight. The losses are shifted by their maximum first, which the normalisation
    cancels, so large ``eta * L`` cannot overflow.

    Parameters
    ----------
    weights : ndarray of shape (n_groups,)
        Current weights (non-negative, summing to one).
    losses : ndarray of shape (n_groups,)
        Each group's loss under the current model.
    eta : float
        Step size.

    Returns
    -------
    ndarray of shape (n_groups,)

    Examples
    --------
    >>> w = exponentiated_update(np.array([0.5, 0.5]), np.array([np.log(3.0), 0.0]), 1.0)
    >>> w.round(3).tolist()
    [0.75, 0.25]
    """
    losses = np.asarray(losses, dtype=np.float64)
    scaled = np.asarray(weights, dtype=np.float64) * np.exp(eta * (losses - np.max(losses)))
    out: NDArray[np.float64] = scaled / scaled.sum()
    return out


class MinimaxFairSampler(GroupSampler):
    """Draw each round's group from MinimaxFair's regulator weights (Diana et al., AIES 2021).

    MinimaxFair (§3, Algorithm 1) plays a zero-sum game: the regulator keeps weights ``w``
    over groups, starting at the population's shares, and after each round multiplies each
    group's weight by ``exp(eta_t * L_g)`` (:func:`exponentiated_update`, step size
    ``eta_t = eta0 * t ** -eta_power``, :func:`regulator_step_size`), where ``L_g`` is the
    group's error of the learner's current model; the learner best responds to ``w``. Here
    data acquisition takes the place of re-weighting: after Phase 1 each round updates ``w``
    with the validation losses of the model trained on the draws so far, then draws its group
    from ``w``, so the training mixture follows the regulator's weights instead of the
    learner weighting a fixed sample. The weights are recorded as ``score_<g>`` and kept in the
    checkpoints (``SamplerState.memory``), so a resumed run continues the same game.

    Parameters
    ----------
    budget : int, default=1000
        Samples drawn in total (training plus paired validation draws).
    b0 : int, default=1
        Samples per draw.
    n0 : int or None, default=None
        Phase 1 rounds visiting the groups in turn; None means one per group.
    eta0 : float, default=1.0
        ``a`` of the authors' step size ``a * t ** -b``.
    eta_power : float, default=0.5
        ``b`` of that step size (0 keeps it constant).
    mode : {"exact", "incremental", "incremental-cnn", "refit"}, default="exact"
        Learner update per round.
    learner : str, estimator or None, default=None
        A scikit-learn classifier refitted on every sample each round; implies ``"refit"``.
    loss : {"zero_one", "log"}, default="zero_one"
        The group error the regulator reacts to (the authors' default for classifiers is
        the 0/1 error; their log-loss variant is ``"log"``).
    random_state : int, numpy.random.Generator, SeedSequence or None, default=None
        Controls every draw. Pass an int for identical results across calls.

    Examples
    --------
    >>> from fairacq.data.synthetic import SyntheticModel1
    >>> from fairacq.sampling import GeneratorOracle
    >>> s = MinimaxFairSampler(budget=30, random_state=0)
    >>> s.fit(GeneratorOracle(SyntheticModel1())).trace_.final("cost")
    30.0
    """

    _parameter_constraints: ClassVar[dict[str, list[Any]]] = {
        **GroupSampler._parameter_constraints,
        "eta0": [Interval(float, 0, None, closed="neither")],
        "eta_power": [Interval(float, 0, None, closed="left")],
    }

    def __init__(
        self,
        *,
        budget: int = 1000,
        b0: int = 1,
        n0: int | None = None,
        eta0: float = 1.0,
        eta_power: float = 0.5,
        mode: str = "exact",
        learner: LearnerLike | None = None,
        loss: str = "zero_one",
        random_state: RandomState = None,
    ) -> None:
        self.budget = budget
        self.b0 = b0
        self.n0 = n0
        self.eta0 = eta0
        self.eta_power = eta_power
        self.mode = mode
        self.learner = learner
        self.loss = loss
        self.random_state = random_state

    @property
    def method_name(self) -> str:
        """Name recorded in traces."""
        return "minimax-fair"

    def _choose(
        self, state: SamplerState, rng: np.random.Generator
    ) -> tuple[int, str, NDArray[np.float64] | None]:
        memory = state.memory
        weights = np.asarray(memory.get("weights", state.proportions), dtype=np.float64)
        t = int(memory.get("round", 0)) + 1
        losses = np.nan_to_num(state.val_loss, nan=0.0)
        weights = exponentiated_update(
            weights, losses, regulator_step_size(t, self.eta0, self.eta_power)
        )
        memory["weights"] = [float(w) for w in weights]
        memory["round"] = t
        return int(rng.choice(state.n_groups, p=weights)), "regulator", weights
