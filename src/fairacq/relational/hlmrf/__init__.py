"""Hinge-loss MRFs: the closed-world atom store, grounding, and the ground model.

``_database`` (:class:`Database`, integer-coded observed and target atoms), ``_grounding``
(:func:`ground`: rules of :mod:`~fairacq.relational.psl` over a database) and
``_ground_model`` (:class:`GroundModel`: hinge potentials and linear constraints over the
target atoms). Builds on the rule language only. Public names are exported from
:mod:`fairacq.relational`.
"""

__all__: list[str] = []
