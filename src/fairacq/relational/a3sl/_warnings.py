"""Warnings about a Fair-A3SL run whose result deserves a second look.

:class:`FairA3SL` records what it finds in ``warnings_`` (plain text, one line each) without
issuing them; :func:`fairacq.relational.learn_rules`, the user-facing workflow, issues them
as these categories (and the command line prints them). Filter them as usual, e.g.
``warnings.simplefilter("ignore", ExplorationWarning)``.
"""

from __future__ import annotations

__all__ = [
    "EXPLORATION_LIMIT",
    "ExplorationWarning",
    "FairA3SLWarning",
    "FairnessBoundWarning",
    "exploration_message",
]

#: Normalised policy entropy at the end of training above which the agent still explores
#: (1: a uniform choice among the valid actions, 0: a fixed one).
EXPLORATION_LIMIT = 0.5


class FairA3SLWarning(UserWarning):
    """Base class of the warnings about a Fair-A3SL run."""


class ExplorationWarning(FairA3SLWarning):
    """The agent's policy was still close to a uniform choice when training stopped."""


class FairnessBoundWarning(FairA3SLWarning):
    """A fairness measure on the test data is above the bound the rules were learned under."""


def exploration_message(exploration: float, episodes: int) -> str | None:
    """Return the warning for a run that ended with this exploration, or None below the limit.

    Examples
    --------
    >>> exploration_message(0.2, 200) is None
    True
    >>> exploration_message(0.93, 12)[:60]
    'Fair-A3SL: exploration did not decay: the policy entropy at '
    """
    if not exploration > EXPLORATION_LIMIT:
        return None
    return (
        f"Fair-A3SL: exploration did not decay: the policy entropy at the end of training is "
        f"{exploration:.2f} of its maximum (limit {EXPLORATION_LIMIT}; 1 is a uniform "
        f"choice) after {episodes} episodes, so the best rules come from near-random search, "
        "not a learned policy. Train for more episodes (--episodes) or raise the agent's "
        "learning rate (agent_options={'lr': ...})."
    )
