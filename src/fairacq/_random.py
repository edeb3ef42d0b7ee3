"""One random stream per run, independent child streams per trial or worker.

Every stochastic step in fairacq takes ``random_state`` (``None``, an int, a
:class:`numpy.random.SeedSequence`, a :class:`numpy.random.Generator` or scikit-learn's
:class:`numpy.random.RandomState`). A run turns it into one root seed sequence
(:func:`root_seed`) and takes every stream it needs as a fixed child of it
(:func:`child`, keyed by the step and a named slot below), so a resumed run draws exactly what
the uninterrupted one drew. Library code never seeds global state.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, TypeAlias

import numpy as np

from fairacq.exceptions import InvalidParameterError

if TYPE_CHECKING:
    import torch

__all__ = [
    "KEY_INIT",
    "KEY_PREPARE",
    "KEY_TRIAL",
    "RandomState",
    "as_generator",
    "child",
    "child_int",
    "child_rng",
    "child_seeds",
    "derive_int_seed",
    "root_seed",
    "seed_of",
    "seed_state",
    "spawn_seeds",
    "torch_generator",
]

RandomState: TypeAlias = (
    "int | np.random.Generator | np.random.SeedSequence | np.random.RandomState | None"
)

#: Spawn-key slots of a run's root seed. Step ``t`` of a run draws from ``child(root, t, ...)``;
#: the slots below lie far above any step count, so one-off streams never meet a step's.
KEY_PREPARE = 10_000  # one-off work before the first step (partitioning, a bandit's stream)
KEY_TRIAL = 50_000  # the per-trial splits of an experiment
KEY_INIT = 2**31  # evaluation sets and the learner drawn before round 0


def _draw_entropy(random_state: np.random.Generator | np.random.RandomState) -> int:
    """One 63-bit draw from a caller's stream (advances it)."""
    if isinstance(random_state, np.random.RandomState):
        return int(random_state.randint(np.iinfo(np.int64).max, dtype=np.int64))
    return int(random_state.integers(2**63))


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
    if isinstance(random_state, np.random.RandomState):
        return np.random.default_rng(_draw_entropy(random_state))
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
    if isinstance(random_state, (np.random.Generator, np.random.RandomState)):
        root = np.random.SeedSequence(_draw_entropy(random_state))
    else:
        as_generator(random_state)  # validates the type and sign
        root = np.random.SeedSequence(None if random_state is None else int(random_state))
    return list(root.spawn(n))


def root_seed(random_state: Any, resume_state: Any = None) -> np.random.SeedSequence:
    """Return the root seed sequence of one run.

    Parameters
    ----------
    random_state : int, Generator, SeedSequence, RandomState or None
        The strategy's ``random_state``. A generator or ``RandomState`` is drawn from once;
        None draws fresh entropy.
    resume_state : mapping or None, default=None
        What :func:`seed_state` recorded in a checkpoint: a resumed run takes the checkpoint's
        root, so even a run seeded with None resumes to the uninterrupted result.

    Examples
    --------
    >>> root_seed(3).entropy, root_seed(None, seed_state(root_seed(3))).entropy
    (3, 3)
    """
    if resume_state and "entropy" in resume_state:
        return np.random.SeedSequence(
            int(resume_state["entropy"]), spawn_key=tuple(resume_state.get("spawn_key", ()))
        )
    if isinstance(random_state, np.random.SeedSequence):
        return random_state
    if isinstance(random_state, (np.random.Generator, np.random.RandomState)):
        return np.random.SeedSequence(_draw_entropy(random_state))
    as_generator(random_state)  # validates the type and sign
    return np.random.SeedSequence(random_state)


def seed_state(root: np.random.SeedSequence) -> dict[str, Any]:
    """JSON-ready description of ``root`` that :func:`root_seed` turns back into it."""
    return {"entropy": str(root.entropy), "spawn_key": [int(k) for k in root.spawn_key]}


def child(root: np.random.SeedSequence, *key: int) -> np.random.SeedSequence:
    """Return the fixed child of ``root`` at ``key`` (the same on every call, unlike ``spawn``).

    Examples
    --------
    >>> child(np.random.SeedSequence(0), 4, 1).spawn_key
    (4, 1)
    """
    return np.random.SeedSequence(root.entropy, spawn_key=(*root.spawn_key, *key))


def child_rng(root: np.random.SeedSequence, *key: int) -> np.random.Generator:
    """Return a generator on :func:`child` ``(root, *key)``."""
    return np.random.default_rng(child(root, *key))


def child_int(root: np.random.SeedSequence, *key: int) -> int:
    """Return a 32-bit int seed from :func:`child` ``(root, *key)`` (for libraries)."""
    return int(child(root, *key).generate_state(1)[0])


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
