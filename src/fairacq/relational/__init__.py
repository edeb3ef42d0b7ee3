"""Relational models: hinge-loss MRFs with a PSL-style rule language (paper 004).

Rules written as text are grounded over observed and target atoms into a
:class:`GroundModel` (hinge potentials and linear constraints over the target atoms); MAP
inference minimises its objective under fairness constraints; weight learning and the
Fair-A3SL structure learner build on it. :func:`read_psl_data`, :func:`write_inference` and
:func:`write_a3sl` read and write the files of ``fairacq relational``.

Importing this package is cheap: every public name loads its submodule on first access.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from fairacq._lazy import lazy_exports as _lazy_exports

if TYPE_CHECKING:
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
    from fairacq.relational._psl_files import (
        NAMED_RELATIONAL,
        a3sl_options,
        can_evaluate,
        load_named_relational,
        read_psl_data,
        rule_weights,
        write_a3sl,
        write_inference,
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
    "NAMED_RELATIONAL",
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
    "a3sl_options",
    "admm_map",
    "align_predictions",
    "apply_fairness",
    "can_evaluate",
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
    "load_named_relational",
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
    "read_psl_data",
    "refine_clause_list",
    "rule_weights",
    "run_pipeline",
    "run_psl",
    "semantic_distance",
    "separable_map",
    "signatures_from_frames",
    "summarise_folds",
    "write_a3sl",
    "write_inference",
]

# Public name -> the submodule that defines it, imported on first access.
_LAZY = {
    "NAMED_RELATIONAL": "fairacq.relational._psl_files",
    "a3sl_options": "fairacq.relational._psl_files",
    "can_evaluate": "fairacq.relational._psl_files",
    "load_named_relational": "fairacq.relational._psl_files",
    "read_psl_data": "fairacq.relational._psl_files",
    "rule_weights": "fairacq.relational._psl_files",
    "write_a3sl": "fairacq.relational._psl_files",
    "write_inference": "fairacq.relational._psl_files",
    "admm_map": "fairacq.relational._admm",
    "align_predictions": "fairacq.relational._evaluation",
    "apply_fairness": "fairacq.relational._pipeline",
    "ArithmeticRule": "fairacq.relational._rules",
    "Atom": "fairacq.relational._rules",
    "BiasedMF": "fairacq.relational._movielens_data",
    "Clause": "fairacq.relational._clause_env",
    "ClauseEnv": "fairacq.relational._clause_env",
    "ClauseLiteral": "fairacq.relational._clause_env",
    "ClauseSpace": "fairacq.relational._clause_env",
    "COMPAS_BASE_RULES": "fairacq.relational._psl_models",
    "compas_baseline": "fairacq.relational._baselines",
    "COMPAS_BASELINES": "fairacq.relational._baselines",
    "COMPAS_FEATURES": "fairacq.relational._baselines",
    "compas_features": "fairacq.relational._baselines",
    "COMPAS_PREDICATES": "fairacq.relational._compas_data",
    "Database": "fairacq.relational._database",
    "enumerate_clauses": "fairacq.relational._clause_search",
    "equalized_odds_gaps": "fairacq.relational._evaluation",
    "equalized_odds_prior": "fairacq.relational._fairness_priors",
    "evaluate_atoms": "fairacq.relational._evaluation",
    "evaluate_classification": "fairacq.relational._evaluation",
    "evaluate_ratings": "fairacq.relational._evaluation",
    "exact_map": "fairacq.relational._exact",
    "FairA3SL": "fairacq.relational._a3sl",
    "fairness_constraints": "fairacq.relational._fairness",
    "FAIRNESS_MEASURES": "fairacq.relational._fairness",
    "fairness_rows": "fairacq.relational._pipeline",
    "FairnessPrior": "fairacq.relational._fairness_priors",
    "FairnessSpec": "fairacq.relational._fairness",
    "fit_biased_mf": "fairacq.relational._movielens_data",
    "fit_fair_mf": "fairacq.relational._baselines",
    "ground": "fairacq.relational._grounding",
    "GroundModel": "fairacq.relational._ground_model",
    "group_mse": "fairacq.relational._evaluation",
    "HingePotentials": "fairacq.relational._ground_model",
    "learn_weights": "fairacq.relational._weight_learning",
    "LinearConstraints": "fairacq.relational._ground_model",
    "Literal": "fairacq.relational._rules",
    "load_compas_relational": "fairacq.relational._compas_data",
    "load_movielens_relational": "fairacq.relational._movielens_data",
    "load_paper_review": "fairacq.relational._paper_review_data",
    "LONG_JAIL_DAYS": "fairacq.relational._compas_data",
    "make_psl_model": "fairacq.relational._psl_models",
    "map_inference": "fairacq.relational._map_inference",
    "MAP_SOLVERS": "fairacq.relational._map_inference",
    "MAP_TIGHT": "fairacq.relational._pipeline",
    "MapResult": "fairacq.relational._map_result",
    "movielens_baseline": "fairacq.relational._baselines",
    "MOVIELENS_BASELINES": "fairacq.relational._baselines",
    "MOVIELENS_HYPER_RULES": "fairacq.relational._psl_models",
    "overestimation_prior": "fairacq.relational._fairness_priors",
    "PAPER_REVIEW_BASE_RULES": "fairacq.relational._psl_models",
    "paper_review_data": "fairacq.relational._paper_review_data",
    "PAPER_REVIEW_PREDICATES": "fairacq.relational._paper_review_data",
    "parse_fairness": "fairacq.relational._fairness",
    "parse_rule": "fairacq.relational._parser",
    "parse_rules": "fairacq.relational._parser",
    "pearson_top_k": "fairacq.relational._movielens_data",
    "PipelineResult": "fairacq.relational._pipeline",
    "PredicateSignature": "fairacq.relational._clause_env",
    "psl_fairness": "fairacq.relational._pslpython_bridge",
    "PSL_MODELS": "fairacq.relational._psl_models",
    "PSL_TIGHT_OPTIONS": "fairacq.relational._pslpython_bridge",
    "psl_unavailable": "fairacq.relational._pslpython_bridge",
    "PslModel": "fairacq.relational._psl_models",
    "PslResult": "fairacq.relational._pslpython_bridge",
    "ranked_auc_pr": "fairacq.relational._evaluation",
    "refine_clause_list": "fairacq.relational._clause_search",
    "RefineResult": "fairacq.relational._clause_search",
    "RelationalData": "fairacq.relational._relational_data",
    "Rule": "fairacq.relational._rules",
    "run_pipeline": "fairacq.relational._pipeline",
    "run_psl": "fairacq.relational._pslpython_bridge",
    "ScoreDetail": "fairacq.relational._structure_scorer",
    "semantic_distance": "fairacq.relational._structure_scorer",
    "separable_map": "fairacq.relational._separable",
    "signatures_from_frames": "fairacq.relational._clause_env",
    "SparseMatrix": "fairacq.relational._ground_model",
    "StructureScorer": "fairacq.relational._structure_scorer",
    "summarise_folds": "fairacq.relational._evaluation",
    "UtilityConfig": "fairacq.relational._structure_scorer",
    "WeightLearningResult": "fairacq.relational._weight_learning",
}

__getattr__, __dir__ = _lazy_exports(__name__, _LAZY, __all__)
