"""Relational models: hinge-loss MRFs with a PSL-style rule language (paper 004).

Rules written as text are grounded over observed and target atoms into a
:class:`GroundModel` (hinge potentials and linear constraints over the target atoms); MAP
inference minimises its objective under fairness constraints; weight learning and the
Fair-A3SL structure learner build on it.
"""

from __future__ import annotations

from fairacq.relational._a3sl import FairA3SL
from fairacq.relational._admm import admm_map
from fairacq.relational._baselines import (
    COMPAS_BASELINES,
    COMPAS_FEATURES,
    MOVIELENS_BASELINES,
    compas_baseline,
    compas_features,
    fit_fair_mf,
    movielens_baseline,
)
from fairacq.relational._clause_env import (
    Clause,
    ClauseEnv,
    ClauseLiteral,
    ClauseSpace,
    PredicateSignature,
    signatures_from_frames,
)
from fairacq.relational._clause_search import (
    RefineResult,
    enumerate_clauses,
    refine_clause_list,
)
from fairacq.relational._compas_data import (
    COMPAS_PREDICATES,
    LONG_JAIL_DAYS,
    load_compas_relational,
)
from fairacq.relational._database import Database
from fairacq.relational._evaluation import (
    align_predictions,
    equalized_odds_gaps,
    evaluate_atoms,
    evaluate_classification,
    evaluate_ratings,
    group_mse,
    ranked_auc_pr,
    summarise_folds,
)
from fairacq.relational._exact import exact_map
from fairacq.relational._fairness import (
    FAIRNESS_MEASURES,
    FairnessSpec,
    fairness_constraints,
    parse_fairness,
)
from fairacq.relational._fairness_priors import (
    FairnessPrior,
    equalized_odds_prior,
    overestimation_prior,
)
from fairacq.relational._ground_model import (
    GroundModel,
    HingePotentials,
    LinearConstraints,
    SparseMatrix,
)
from fairacq.relational._grounding import ground
from fairacq.relational._map_inference import MAP_SOLVERS, map_inference
from fairacq.relational._map_result import MapResult
from fairacq.relational._movielens_data import (
    BiasedMF,
    fit_biased_mf,
    load_movielens_relational,
    pearson_top_k,
)
from fairacq.relational._paper_review_data import (
    PAPER_REVIEW_PREDICATES,
    load_paper_review,
    paper_review_data,
)
from fairacq.relational._parser import parse_rule, parse_rules
from fairacq.relational._pipeline import (
    MAP_TIGHT,
    PipelineResult,
    apply_fairness,
    fairness_rows,
    run_pipeline,
)
from fairacq.relational._psl_models import (
    COMPAS_BASE_RULES,
    MOVIELENS_HYPER_RULES,
    PAPER_REVIEW_BASE_RULES,
    PSL_MODELS,
    PslModel,
    make_psl_model,
)
from fairacq.relational._pslpython_bridge import (
    PSL_TIGHT_OPTIONS,
    PslResult,
    psl_fairness,
    psl_unavailable,
    run_psl,
)
from fairacq.relational._relational_data import RelationalData
from fairacq.relational._rules import ArithmeticRule, Atom, Literal, Rule
from fairacq.relational._separable import separable_map
from fairacq.relational._structure_scorer import (
    ScoreDetail,
    StructureScorer,
    UtilityConfig,
    semantic_distance,
)
from fairacq.relational._weight_learning import WeightLearningResult, learn_weights

__all__ = [
    "COMPAS_BASELINES",
    "COMPAS_BASE_RULES",
    "COMPAS_FEATURES",
    "COMPAS_PREDICATES",
    "FAIRNESS_MEASURES",
    "LONG_JAIL_DAYS",
    "MAP_SOLVERS",
    "MAP_TIGHT",
    "MOVIELENS_BASELINES",
    "MOVIELENS_HYPER_RULES",
    "PAPER_REVIEW_BASE_RULES",
    "PAPER_REVIEW_PREDICATES",
    "PSL_MODELS",
    "PSL_TIGHT_OPTIONS",
    "ArithmeticRule",
    "Atom",
    "BiasedMF",
    "Clause",
    "ClauseEnv",
    "ClauseLiteral",
    "ClauseSpace",
    "Database",
    "FairA3SL",
    "FairnessPrior",
    "FairnessSpec",
    "GroundModel",
    "HingePotentials",
    "LinearConstraints",
    "Literal",
    "MapResult",
    "PipelineResult",
    "PredicateSignature",
    "PslModel",
    "PslResult",
    "RefineResult",
    "RelationalData",
    "Rule",
    "ScoreDetail",
    "SparseMatrix",
    "StructureScorer",
    "UtilityConfig",
    "WeightLearningResult",
    "admm_map",
    "align_predictions",
    "apply_fairness",
    "compas_baseline",
    "compas_features",
    "enumerate_clauses",
    "equalized_odds_gaps",
    "equalized_odds_prior",
    "evaluate_atoms",
    "evaluate_classification",
    "evaluate_ratings",
    "exact_map",
    "fairness_constraints",
    "fairness_rows",
    "fit_biased_mf",
    "fit_fair_mf",
    "ground",
    "group_mse",
    "learn_weights",
    "load_compas_relational",
    "load_movielens_relational",
    "load_paper_review",
    "make_psl_model",
    "map_inference",
    "movielens_baseline",
    "overestimation_prior",
    "paper_review_data",
    "parse_fairness",
    "parse_rule",
    "parse_rules",
    "pearson_top_k",
    "psl_fairness",
    "psl_unavailable",
    "ranked_auc_pr",
    "refine_clause_list",
    "run_pipeline",
    "run_psl",
    "semantic_distance",
    "separable_map",
    "signatures_from_frames",
    "summarise_folds",
]
