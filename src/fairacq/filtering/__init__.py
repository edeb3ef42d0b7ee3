"""Balanced filtering through non-disclosive proxies (Deng, Diana, Kearns & Roth; Deng et al.).

The user can screen an unlimited stream of candidates but may not see their sensitive
group. From a small labelled sample they fit a *proxy* ``z_hat(x)`` (a few values), read off
its conditional distribution matrix ``A[j, i] = Pr[z = i | z_hat = j]``, and choose one
admission probability ``rho_j`` per proxy value (Algorithm 1: :func:`sampling_weights`, a QP
``min ||qA - U||`` over the simplex, or its relaxation). :class:`BalancedFilter` then admits
each candidate with probability ``rho[z_hat(x)]`` (Algorithm 2): ``fit`` filters a batch
(``admitted_``, ``mask_``, ``trace_``), ``filter_stream`` a stream of chunks, so
the admitted set is balanced in expectation while the proxy discloses little (alpha,
Definition 5; see :mod:`fairacq.metrics` for alpha and beta).

Proxies: :class:`LabelProxy` predicts the group with a logistic regression or a decision tree
(``predictor=``) and admits equal numbers per predicted group or by Algorithm 1's weights
(``weights="naive"`` or ``"qp"``): the paper's naive and QP regression and tree proxies; the
:class:`AlphaBetaProxy` tree (Algorithms 3-4: splits learned by a Lagrangian game, alpha
guaranteed in-sample). A fitted proxy saves as plain JSON (:func:`save_proxy` /
:func:`load_proxy`), without any individual's group label; :func:`interpolation_curve`
traces the naive and QP proxies' alpha-beta curves (App. A.1.1). :func:`make_proxy` and
:func:`fit_proxy` build and fit any proxy by name (:data:`PROXY_NAMES`).

A user's raw table (fairacq's addition): :func:`fit_table_proxy` fits a
:class:`~fairacq.data.TableEncoder` and a proxy on a table's raw columns (label and group
columns named by :class:`~fairacq.data.TableColumns`) and returns a :class:`TableProxy`,
saved as JSON with its encoder; :func:`filter_table` admits raw candidates with it and
returns their own rows. The naive and QP proxies take any scikit-learn classifier
(``model=`` / ``estimator=``); only linear models and trees save as JSON
(:func:`check_saveable_model`).

Intersecting groups (App. A.2): pass ``s`` as a DataFrame with one column per group class
(e.g. race and sex), or a :class:`~fairacq.data.FairDataset` with several sensitive
attributes. ``A`` then concatenates the within-class distributions, the target is
``U_intersect``, beta follows Definition 16 and alpha bounds every membership column
(:func:`intersecting_disclosivity`, :func:`intersecting_imbalance`).
"""

from __future__ import annotations

from fairacq.filtering._filter import BalancedFilter
from fairacq.filtering._interpolate import interpolation_curve
from fairacq.filtering._intersect import (
    intersecting_conditional_matrix,
    intersecting_disclosivity,
    intersecting_disclosivity_from_matrix,
    intersecting_imbalance,
    intersecting_imbalance_from_matrix,
)
from fairacq.filtering._membership import GroupClasses
from fairacq.filtering._table_filter import (
    PROBABILITY_COLUMN,
    TableFilterResult,
    filter_table,
    run_summary,
)
from fairacq.filtering._weights import SamplingWeights, UnreachableTargetWarning, sampling_weights
from fairacq.filtering.proxies._estimator import EstimatorRule, check_saveable_model
from fairacq.filtering.proxies._factory import (
    PROXY_NAMES,
    evaluation_groups,
    fit_proxy,
    make_proxy,
)
from fairacq.filtering.proxies._lagrangian import (
    SplitGameResult,
    paired_regression_oracle,
    play_split_game,
    tree_oracle,
)
from fairacq.filtering.proxies._proxies import FittedProxy, LabelProxy
from fairacq.filtering.proxies._rules import LinearRule, RandomizedTreeRule, TreeRule
from fairacq.filtering.proxies._serialize import (
    load_proxy,
    proxy_from_dict,
    proxy_to_dict,
    save_proxy,
)
from fairacq.filtering.proxies._table import TableProxy, fit_proxy_report, fit_table_proxy
from fairacq.filtering.proxies._tree import AlphaBetaProxy

__all__ = [
    "PROBABILITY_COLUMN",
    "PROXY_NAMES",
    "AlphaBetaProxy",
    "BalancedFilter",
    "EstimatorRule",
    "FittedProxy",
    "GroupClasses",
    "LabelProxy",
    "LinearRule",
    "RandomizedTreeRule",
    "SamplingWeights",
    "SplitGameResult",
    "TableFilterResult",
    "TableProxy",
    "TreeRule",
    "UnreachableTargetWarning",
    "check_saveable_model",
    "evaluation_groups",
    "filter_table",
    "fit_proxy",
    "fit_proxy_report",
    "fit_table_proxy",
    "interpolation_curve",
    "intersecting_conditional_matrix",
    "intersecting_disclosivity",
    "intersecting_disclosivity_from_matrix",
    "intersecting_imbalance",
    "intersecting_imbalance_from_matrix",
    "load_proxy",
    "make_proxy",
    "paired_regression_oracle",
    "play_split_game",
    "proxy_from_dict",
    "proxy_to_dict",
    "run_summary",
    "sampling_weights",
    "save_proxy",
    "tree_oracle",
]
