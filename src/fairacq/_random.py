"""One random stream per run, independent child streams per trial or worker.

Every stochastic step in fairacq takes ``random_state`` (``None``, an int, a
:class:`numpy.random.SeedSequence` or a :class:`numpy.random.Generator`). At the start of the
work it becomes one :class:`numpy.random.Generator`; independent streams come from
:meth:`numpy.random.SeedSequence.spawn`. Library code never seeds global state.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, TypeAlias

import numpy as np

from fairacq.exceptions import InvalidParameterError

if TYPE_CHECKING:
    import torch

__all__ = [
    "RandomState",
    "as_generator",
    "child_seeds",
    "derive_int_seed",
    "seed_of",
    "spawn_seeds",
    "torch_generator",
]

RandomState: TypeAlias = "int | np.random.Generator | np.random.SeedSequence | None"


def as_generator(random_state: Any) -> np.random.Generator:
    """Turn ``random_state`` into a :class:`numpy.random.Generator`.

    Parameters
    ----------
    random_state : int, numpy.random.Generator, numpy.random.SeedSequence or None
        ``None`` draws fresh entropy; an int or a seed sequence gives a reproducible stream; a
        generator is returned unchanged (so a caller's stream keeps advancing).

    Returns
    -------
    numpy.random.Generator

    Examples
    --------
    >>> bool(as_generator(3).integers(100) == as_generator(3).integers(100))
    True
    """
    if isinstance(random_state, np.random.Generator):
        return random_state
    if random_state is None or isinstance(random_state, np.random.SeedSequence):
        return np.random.default_rng(random_state)
    if isinstance(random_state, (int, np.integer)) and not isinstance(random_state, bool):
        if random_state < 0:
            raise InvalidParameterError(
                f"random_state must be a non-negative int, a Generator or None. "
                f"Got {random_state} instead. Pass a seed >= 0."
            )
        return np.random.default_rng(int(random_state))
    raise InvalidParameterError(
        f"random_state must be None, an int, a numpy SeedSequence or a numpy Generator. "
        f"Got {type(random_state).__name__} instead."
    )


def child_seeds(seed: np.random.SeedSequence, n: int) -> list[np.random.SeedSequence]:
    """Return the first ``n`` children of ``seed`` without advancing it.

    ``seed.spawn(n)`` hands out the *next* ``n`` children and remembers them, so a seed shared
    by several tasks run in one process (a serial executor, a worker's chunk) would give each
    task different children than a process pool would. This returns what ``spawn(n)`` on a
    fresh copy returns, on every call, whatever ran before.

    Examples
    --------
    >>> root = np.random.SeedSequence(0)
    >>> _ = root.spawn(5)  # advancing the root does not matter
    >>> [c.spawn_key for c in child_seeds(root, 2)]
    [(0,), (1,)]
    >>> child_seeds(root, 1)[0].entropy == np.random.SeedSequence(0).spawn(1)[0].entropy
    True
    """
    return [
        np.random.SeedSequence(
            seed.entropy, spawn_key=(*seed.spawn_key, i), pool_size=seed.pool_size
        )
        for i in range(n)
    ]


def spawn_seeds(random_state: Any, n: int) -> list[np.random.SeedSequence]:
    """Return ``n`` independent child seed sequences of ``random_state``.

    An int seed gives the same children on every call; each child records its ``spawn_key``
    so that a single trial can be replayed.

    Examples
    --------
    >>> [s.spawn_key for s in spawn_seeds(0, 2)]
    [(0,), (1,)]
    """
    if isinstance(random_state, np.random.SeedSequence):
        return child_seeds(random_state, n)
    if isinstance(random_state, np.random.Generator):
        root = np.random.SeedSequence(int(random_state.integers(2**63)))
    else:
        as_generator(random_state)  # validates the type and sign
        root = np.random.SeedSequence(None if random_state is None else int(random_state))
    return list(root.spawn(n))


def derive_int_seed(random_state: Any) -> int:
    """Draw one 32-bit int from ``random_state`` for libraries that want an int seed."""
    if isinstance(random_state, np.random.SeedSequence):
        return int(random_state.generate_state(1)[0])
    return int(as_generator(random_state).integers(2**31 - 1))


def seed_of(random_state: Any) -> dict[str, Any]:
    """Describe ``random_state`` for a trace's metadata (seed and spawn key when known)."""
    if isinstance(random_state, np.random.SeedSequence):
        entropy = random_state.entropy
        return {
            "seed": int(entropy) if isinstance(entropy, int) else None,
            "spawn_key": list(random_state.spawn_key),
        }
    if isinstance(random_state, (int, np.integer)):
        return {"seed": int(random_state), "spawn_key": []}
    return {"seed": None, "spawn_key": []}


def torch_generator(random_state: Any) -> torch.Generator:
    """Return a seeded :class:`torch.Generator` derived from ``random_state``."""
    from fairacq._deps import require

    torch_module = require("torch", purpose="torch random streams")
    gen: torch.Generator = torch_module.Generator().manual_seed(derive_int_seed(random_state))
    return gen
