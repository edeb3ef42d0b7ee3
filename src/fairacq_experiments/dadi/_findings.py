"""What Fig. 2's agents show beyond the figure, as numbers and as the sentences that word them.

Each finding has a ``*_facts`` function (the numbers, kept in ``summary.json``'s ``meta``) and
a ``*_note`` function that words those numbers for ``summary.md``; the acceptance check
against a reference classifier is a :class:`Verdict` whose ``facts`` say why it is (not) met.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import pandas as pd

from fairacq_experiments._framework.verdict import Verdict

__all__ = [
    "leakage_facts",
    "leakage_note",
    "one_third_check",
    "reward_comparison_facts",
    "reward_comparison_note",
]

#: How much better (group ROC AUC) a fresh adversary must do to count as a leak.
_LEAK_MARGIN = 0.05


def leakage_facts(agents: pd.DataFrame) -> dict[str, Any]:
    """Medians of the group AUCs and how many agents' adversaries fell short of a fresh one.

    Parameters
    ----------
    agents : pandas.DataFrame
        One row per agent with ``adversary_auc_joint``, ``adversary_auc_fresh``,
        ``adversary_auc_fresh_all`` and ``prediction_group_auc``.

    Returns
    -------
    dict
        ``n_agents``, ``n_weak`` (agents whose fresh adversary beats the joint one by more
        than 0.05 AUC) and the median of each of the four columns (key = column name).

    Examples
    --------
    >>> frame = pd.DataFrame({"adversary_auc_joint": [0.5, 0.6], "adversary_auc_fresh": [0.6, 0.6],
    ...                       "adversary_auc_fresh_all": [0.9, 0.9],
    ...                       "prediction_group_auc": [0.6, 0.6]})
    >>> leakage_facts(frame)["n_weak"]
    1
    """
    gap = agents["adversary_auc_fresh"] - agents["adversary_auc_joint"]
    columns = (
        "adversary_auc_joint",
        "adversary_auc_fresh",
        "adversary_auc_fresh_all",
        "prediction_group_auc",
    )
    return {
        "n_agents": len(agents),
        "n_weak": int((gap > _LEAK_MARGIN).sum()),
        **{c: float(agents[c].median()) for c in columns},
    }


def leakage_note(agents: pd.DataFrame) -> str:
    """Say whether the jointly trained adversary saw what a fresh one finds in the policy.

    Parameters
    ----------
    agents : pandas.DataFrame
        As for :func:`leakage_facts`.

    Returns
    -------
    str
        Medians and how many agents' adversaries fell more than 0.05 AUC short.
    """
    facts = leakage_facts(agents)
    weak, n = facts["n_weak"], facts["n_agents"]
    verdict = (
        f"for {weak} of {n} agents a fresh adversary recovers the group from the revealed "
        "values better than the one the agent was trained against (by more than 0.05 AUC): "
        "there the policy hides the attribute from its own adversary only, and eq. (2)'s "
        "reward overstates its fairness"
        if weak
        else "no agent's adversary falls more than 0.05 AUC short of a fresh one: the policy "
        "hides what can be hidden from a logistic-regression adversary too"
    )
    return (
        "Leakage of the revealed features about the group (test part, median over agents, "
        "group ROC AUC; 0.5 = nothing): the jointly trained adversary "
        f"{facts['adversary_auc_joint']:.3f}, a fresh cross-validated logistic "
        f"regression on the same revealed values {facts['adversary_auc_fresh']:.3f} "
        f"(on every feature {facts['adversary_auc_fresh_all']:.3f}); the "
        f"classifier's score itself {facts['prediction_group_auc']:.3f}. "
        f"{verdict[0].upper()}{verdict[1:]}."
    )


def reward_comparison_facts(agents: pd.DataFrame) -> dict[str, Any]:
    """Medians of the rewards and how many agents' policies beat every static subset.

    Parameters
    ----------
    agents : pandas.DataFrame
        One row per agent with ``reward_policy``, ``reward_all``, ``reward_none`` and
        ``reward_static_best`` (mean test rewards under that agent's own networks).

    Returns
    -------
    dict
        ``n_agents``, ``n_wins`` (agents whose policy earns at least the best static
        subset's reward) and the median of each of the four columns (key = column name).
    """
    columns = ("reward_policy", "reward_static_best", "reward_all", "reward_none")
    return {
        "n_agents": len(agents),
        "n_wins": int((agents["reward_policy"] >= agents["reward_static_best"]).sum()),
        **{c: float(agents[c].median()) for c in columns},
    }


def reward_comparison_note(agents: pd.DataFrame) -> str:
    """Say whether each agent's policy earns more of eq. (2) than one subset for everybody.

    Parameters
    ----------
    agents : pandas.DataFrame
        As for :func:`reward_comparison_facts`.

    Returns
    -------
    str
        Medians, how many agents beat every static subset, and what that implies.
    """
    facts = reward_comparison_facts(agents)
    wins, n = facts["n_wins"], facts["n_agents"]
    verdict = (
        "so the search does what eq. (2) asks: where DADI's front falls short of static "
        "selection, eq. (2)'s adversary loss and the measured disparity disagree, not the "
        "optimiser"
        if wins == n
        else f"for {n - wins} agent(s) one static subset would earn more: there the search "
        "falls short of its own objective"
    )
    return (
        "Eq. (2) reward on the test part under each agent's own networks (median over agents): "
        f"its policy {facts['reward_policy']:+.4f}, the best static subset of the "
        f"fold {facts['reward_static_best']:+.4f}, every feature "
        f"{facts['reward_all']:+.4f}, none {facts['reward_none']:+.4f}. "
        f"The policy earns at least as much as every static subset for {wins} of {n} agents; "
        f"{verdict}."
    )


def one_third_check(medians: pd.DataFrame, label: str, ref_auc: float, ref_disp: float) -> Verdict:
    """Check for AUC within 0.05 of a reference at a third of its disparity (acceptance check).

    Parameters
    ----------
    medians : pandas.DataFrame
        Median ``auc`` and ``disparity`` indexed by (reward, 1 - gamma).
    label : str
        Name of the reference classifier.
    ref_auc, ref_disp : float
        The reference's median AUC and disparity.

    Returns
    -------
    Verdict
        ``ours`` is the lowest median disparity of any (reward, 1 - gamma) whose AUC is
        within 0.05 of the reference's (None when none is), ``target`` a third of the
        reference's disparity. Never met when the reference's disparity is 0: there is
        nothing to cut. ``facts``: ``testable`` (the reference has disparity to cut),
        ``n_near`` (settings within 0.05 AUC) and ``example`` (the first setting that
        meets the target: reward, one_minus_gamma, auc, disparity; None when none does).
    """
    near = medians[medians["auc"] >= ref_auc - 0.05]
    name = (
        f"lowest disparity within 0.05 AUC of {label} (AUC {ref_auc:.3f}, disparity "
        f"{ref_disp:.3f})"
    )
    ours = float(near["disparity"].min()) if len(near) else None
    verdict = Verdict.check(name, ours, "<=", ref_disp / 3)
    facts: dict[str, Any] = {"testable": ref_disp > 0, "n_near": len(near), "example": None}
    if ref_disp <= 0:
        detail = "Not testable: the reference has no disparity to cut."
        return dataclasses.replace(verdict, met=False, detail=detail, facts=facts)
    if verdict.met:
        row = near[near["disparity"] <= ref_disp / 3].reset_index().iloc[0]
        facts["example"] = {
            "reward": str(row["reward"]),
            "one_minus_gamma": float(row["one_minus_gamma"]),
            "auc": float(row["auc"]),
            "disparity": float(row["disparity"]),
        }
        detail = (
            f"E.g. {row['reward']} at 1 - gamma = {float(row['one_minus_gamma']):g} (AUC "
            f"{row['auc']:.3f}, disparity {row['disparity']:.3f})."
        )
    elif ours is None:
        detail = "No gamma comes within 0.05 AUC."
    else:
        detail = ""
    return dataclasses.replace(verdict, detail=detail, facts=facts)
