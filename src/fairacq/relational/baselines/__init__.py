"""Non-relational baselines of Zhang & Ramesh's COMPAS and MovieLens tables.

``_compas`` (logistic regression and fairlearn over the features the PSL rules read) and
``_movielens`` (MF and Fair-MF). They read :class:`~fairacq.data.relational.RelationalData`
and use no rule, grounding or inference. Public names are exported from
:mod:`fairacq.relational`.
"""

__all__: list[str] = []
