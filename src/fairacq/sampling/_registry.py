"""Build any group sampler by name."""

from __future__ import annotations

from typing import Any

from fairacq._validation import did_you_mean
from fairacq.sampling._abernethy import AbernethyGreedySampler
from fairacq.sampling._aopt import AoptPlusSampler, AoptSampler
from fairacq.sampling._base import GroupSampler
from fairacq.sampling._baselines import (
    EpsilonGreedySampler,
    GreedySampler,
    UncuratedSampler,
    UniformSampler,
)
from fairacq.sampling._minimax_fair import MinimaxFairSampler
from fairacq.sampling._slice_tuner import SliceTunerSampler

__all__ = ["available_samplers", "make_sampler"]

_SAMPLERS: dict[str, type[GroupSampler]] = {
    "abernethy-greedy": AbernethyGreedySampler,
    "aopt": AoptSampler,
    "aopt-plus": AoptPlusSampler,
    "epsilon-greedy": EpsilonGreedySampler,
    "greedy": GreedySampler,
    "minimax-fair": MinimaxFairSampler,
    "slice-tuner": SliceTunerSampler,
    "uniform": UniformSampler,
    "uncurated": UncuratedSampler,
}


def available_samplers() -> list[str]:
    """Names accepted by :func:`make_sampler`.

    Examples
    --------
    >>> available_samplers()
    ['abernethy-greedy', 'aopt', 'aopt-plus', 'epsilon-greedy', 'greedy', 'minimax-fair', \
'slice-tuner', 'uncurated', 'uniform']
    """
    return sorted(_SAMPLERS)


def make_sampler(method: str, **params: Any) -> GroupSampler:
    """Build the sampler registered as ``method``; parameters it does not take are dropped.

    Raises
    ------
    UnknownNameError
        With the closest name.
    """
    try:
        cls = _SAMPLERS[method]
    except KeyError:
        raise did_you_mean(
            "sampling method", method, _SAMPLERS, "fairacq.sampling.available_samplers()"
        ) from None
    accepted = cls._get_param_names()
    return cls(**{k: v for k, v in params.items() if k in accepted})
