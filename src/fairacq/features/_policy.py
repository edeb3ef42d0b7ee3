"""How much does a per-person policy differ between people? Sets asked, and a collapse named.

A DADI agent is worth its training only if it asks different people for different
features. :func:`policy_variety` counts the distinct feature sets asked (order aside) and
how often the commonest one is asked; :func:`policy_warnings` words the two cases a user
should not miss: nobody asked for anything (the decisions rest on the label's overall rate)
and everybody asked for the same set (a fixed list of questions would do the same).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

__all__ = ["PolicyVariety", "policy_variety", "policy_warnings"]

#: Longer feature sets are named by their size and first three features.
_LISTED = 4
#: Fewer people than this are too few to call one shared feature set a collapse.
MIN_PEOPLE = 20


def _words(features: Sequence[str]) -> str:
    """``no feature``, ``age only``, ``age and trade``, ``age, trade and district``.

    Examples
    --------
    >>> _words(list("abcdef"))
    '6 features (a, b, c, ...)'
    """
    if not features:
        return "no feature"
    if len(features) == 1:
        return f"{features[0]} only"
    if len(features) > _LISTED:
        return f"{len(features)} features ({', '.join(features[:3])}, ...)"
    return f"{', '.join(features[:-1])} and {features[-1]}"


@dataclass(frozen=True)
class PolicyVariety:
    """The distinct feature sets a policy asks people for.

    Attributes
    ----------
    n_people : int
    n_sets : int
        Distinct feature sets asked (the order of the questions aside).
    top_set : tuple of str
        The commonest set (sorted names; empty: nothing asked).
    top_share : float
        Share of the people asked for exactly ``top_set``.
    shares : dict of str to float
        The five commonest sets in words (``"age and trade"``) and their shares.
    """

    n_people: int
    n_sets: int
    top_set: tuple[str, ...]
    top_share: float
    shares: dict[str, float]

    def sentence(self) -> str:
        """Say it in one line, e.g. ``asked 3 different feature sets; 80 % asked for age only``.

        Examples
        --------
        >>> policy_variety([["age"], ["age"], ["trade", "age"]]).sentence()
        'asked 2 different feature sets; 67 % were asked for age only'
        """
        sets = "feature set" if self.n_sets == 1 else "different feature sets"
        return (
            f"asked {self.n_sets} {sets}; {100 * self.top_share:.0f} % were asked for "
            f"{_words(self.top_set)}"
        )

    def to_dict(self) -> dict[str, Any]:
        """Return the counts as JSON types (for ``summary.json`` and ``--json``)."""
        return {
            "n_people": self.n_people,
            "n_feature_sets": self.n_sets,
            "commonest_set": list(self.top_set),
            "commonest_share": self.top_share,
            "set_shares": dict(self.shares),
        }


def policy_variety(asked: Sequence[Sequence[str]]) -> PolicyVariety:
    """Count the distinct feature sets asked, one entry per person.

    Parameters
    ----------
    asked : sequence of sequences of str
        The features each person is asked for (in any order; empty: none).

    Returns
    -------
    PolicyVariety

    Examples
    --------
    >>> v = policy_variety([["age"], [], ["age"], ["age"]])
    >>> v.n_sets, v.top_set, v.top_share
    (2, ('age',), 0.75)
    """
    counts = Counter(tuple(sorted(set(a))) for a in asked)
    n = sum(counts.values())
    ranked = counts.most_common()
    top, top_n = ranked[0] if ranked else ((), 0)
    return PolicyVariety(
        n_people=n,
        n_sets=len(counts),
        top_set=top,
        top_share=top_n / n if n else 0.0,
        shares={_words(s): c / n for s, c in ranked[:5]},
    )


def policy_warnings(variety: PolicyVariety, *, where: str = "people") -> list[str]:
    """Return the warnings a collapsed policy earns (none for a varied one).

    Parameters
    ----------
    variety : PolicyVariety
    where : str, default="people"
        Names the rows in the message (``"test rows"``, ``"people in people.csv"``).

    Examples
    --------
    >>> policy_warnings(policy_variety([[]] * 30))[0][:45]
    'the agent asks none of the 30 people for any '
    >>> policy_warnings(policy_variety([["a"], ["b"]] * 15))
    []
    """
    if variety.n_sets != 1 or variety.n_people < MIN_PEOPLE:
        return []
    if not variety.top_set:
        return [
            f"the agent asks none of the {variety.n_people} {where} for any feature, so every "
            "decision rests on the label's overall rate alone: its policy collapsed to "
            "stopping at once. Train longer (--train-iter, or --preset full) or lower --gamma."
        ]
    return [
        f"the agent asks every one of the {variety.n_people} {where} for the same features "
        f"({_words(variety.top_set)}): its policy does not differ between people, so a fixed "
        "list of questions would do the same. Train longer (--train-iter, or --preset full) "
        "if you expected it to adapt to each person."
    ]
