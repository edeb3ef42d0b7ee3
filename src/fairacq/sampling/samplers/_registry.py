"""Build any group sampler by name."""

from __future__ import annotations

from typing import Any

from fairacq._validation import check_known_params, did_you_mean
from fairacq.exceptions import InvalidParameterError
from fairacq.sampling.loop._base import GroupSampler
from fairacq.sampling.samplers._abernethy import AbernethyGreedySampler
from fairacq.sampling.samplers._aopt import AoptPlusSampler, AoptSampler
from fairacq.sampling.samplers._baselines import (
    EpsilonGreedySampler,
    GreedySampler,
    UncuratedSampler,
    UniformSampler,
)
from fairacq.sampling.samplers._minimax_fair import MinimaxFairSampler
from fairacq.sampling.samplers._slice_tuner import SliceTunerSampler

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
    """Build the sampler registered as ``method`` with hyper-parameters ``params``.

    A parameter the sampler does not take (a typo such as ``budgte``) is refused; see
    :func:`samplers_taking` to find the samplers that take one.

    Raises
    ------
    UnknownNameError
        With the closest name.
    InvalidParameterError
        For a parameter the sampler does not take, with the closest one it takes.

    Examples
    --------
    >>> make_sampler("uniform", budget=50).budget
    50
    >>> make_sampler("uniform", budgte=50)
    Traceback (most recent call last):
    ...
    fairacq.exceptions.InvalidParameterError: make_sampler: method 'uniform' takes no \
parameter 'budgte'. Did you mean 'budget'? ...
    """
    try:
        cls = _SAMPLERS[method]
    except KeyError:
        raise did_you_mean(
            "sampling method", method, _SAMPLERS, "fairacq.sampling.available_samplers()"
        ) from None
    check_known_params(f"make_sampler: method {method!r}", params, cls._get_param_names())
    return cls(**params)


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
    accepted = make_sampler(method).get_params(deep=False)
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
