"""MAP inference in a ground hinge-loss MRF, and the fairness constraints it obeys.

``_admm`` (consensus ADMM, as PSL), ``_separable`` (exact, for potentials on one variable),
``_exact`` (the cvxpy reference), ``_map_inference`` (one entry point choosing the solver),
``_map_result`` (:class:`MapResult`) and ``_fairness`` (the delta-fairness rows of Zhang & Ramesh,
§4.2, as linear constraints). Builds on :mod:`~fairacq.relational.hlmrf`. Public names are
exported from :mod:`fairacq.relational`.
"""

__all__: list[str] = []
