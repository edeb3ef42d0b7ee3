"""Relational data sets (Zhang & Ramesh): observed and target atoms, their truth, fairness groups.

:class:`RelationalData` holds one data set as predicate tables (argument columns, then
``value``): the observations, the target atoms, their truth, and the protected and
unprotected target atoms of the fairness predicate. The loaders build one from the paper's
data: :func:`load_paper_review` (the authors' samples; the generator is
:func:`fairacq.data.synthetic.make_paper_review`, and :func:`paper_review_data` chooses other
targets or another protected group), :func:`load_compas_relational` and
:func:`load_movielens_relational` (which takes the matrix factorisation behind ``ratingMF``;
:func:`fairacq.relational.load_movielens_relational` passes
:func:`fairacq.models.fit_biased_mf`). The relational family grounds rules on these tables.

Importing this package is cheap: every public name loads its submodule on first access.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from fairacq._lazy import lazy_exports as _lazy_exports

if TYPE_CHECKING:
    from fairacq.data.relational._compas import (
        COMPAS_PREDICATES,
        LONG_JAIL_DAYS,
        load_compas_relational,
    )
    from fairacq.data.relational._movielens import load_movielens_relational, pearson_top_k
    from fairacq.data.relational._paper_review import (
        PAPER_REVIEW_PREDICATES,
        load_paper_review,
        paper_review_data,
        paper_review_table,
        write_paper_review,
    )
    from fairacq.data.relational._relational_data import RelationalData

__all__ = [
    "COMPAS_PREDICATES",
    "LONG_JAIL_DAYS",
    "PAPER_REVIEW_PREDICATES",
    "RelationalData",
    "load_compas_relational",
    "load_movielens_relational",
    "load_paper_review",
    "paper_review_data",
    "paper_review_table",
    "pearson_top_k",
    "write_paper_review",
]

# Public name -> the submodule that defines it, imported on first access.
_LAZY = {
    "COMPAS_PREDICATES": "fairacq.data.relational._compas",
    "LONG_JAIL_DAYS": "fairacq.data.relational._compas",
    "load_compas_relational": "fairacq.data.relational._compas",
    "load_movielens_relational": "fairacq.data.relational._movielens",
    "load_paper_review": "fairacq.data.relational._paper_review",
    "PAPER_REVIEW_PREDICATES": "fairacq.data.relational._paper_review",
    "paper_review_data": "fairacq.data.relational._paper_review",
    "paper_review_table": "fairacq.data.relational._paper_review",
    "pearson_top_k": "fairacq.data.relational._movielens",
    "RelationalData": "fairacq.data.relational._relational_data",
    "write_paper_review": "fairacq.data.relational._paper_review",
}

__getattr__, __dir__ = _lazy_exports(__name__, _LAZY, __all__)
