"""Build any group sampler by name."""

from __future__ import annotations

from typing import Any

from fairacq._validation import did_you_mean
from fairacq.exceptions import InvalidParameterError
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

__all__ = ["available_samplers", "check_params_apply", "make_sampler", "samplers_taking"]

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


def samplers_taking(param: str) -> list[str]:
    """Names of the samplers that take the hyper-parameter ``param``, sorted.

    Examples
    --------
    >>> samplers_taking("epsilon")
    ['epsilon-greedy']
    >>> samplers_taking("c0")
    ['aopt', 'aopt-plus']
    """
    return sorted(name for name, cls in _SAMPLERS.items() if param in cls._get_param_names())


def check_params_apply(method: str, params: dict[str, Any], *, where: str) -> None:
    """Refuse a hyper-parameter the sampler ``method`` does not take (it would be ignored).

    Parameters
    ----------
    method : str
        A sampler name (:func:`available_samplers`).
    params : dict
        Hyper-parameters given for it.
    where : str
        The function the parameters were given to, named in the message.

    Raises
    ------
    UnknownNameError
        For an unknown ``method``.
    InvalidParameterError
        Naming the first parameter ``method`` does not take and the samplers that do.

    Examples
    --------
    >>> check_params_apply("epsilon-greedy", {"epsilon": 0.2}, where="allocate_budget")
    >>> try:
    ...     check_params_apply("aopt", {"epsilon": 0.2}, where="allocate_budget")
    ... except InvalidParameterError as exc:
    ...     print(str(exc)[:56])
    allocate_budget: epsilon applies to epsilon-greedy only,
    """
    accepted = type(make_sampler(method))._get_param_names()
    for name in sorted(params):
        if name in accepted:
            continue
        takers = samplers_taking(name)
        fix = (
            f"Pick method {' or '.join(repr(t) for t in takers)}, or drop {name}."
            if takers
            else f"No sampler takes it: drop {name}."
        )
        only = f"applies to {', '.join(takers)} only" if takers else "is no sampler's parameter"
        raise InvalidParameterError(
            f"{where}: {name} {only}, so method {method!r} would ignore it. {fix}"
        )
