"""Fair-A3SL: actor-critic structure learning of fair hinge-loss MRFs (Zhang & Ramesh).

``_clause_env`` (the clause-building environment), ``_a2c`` (the advantage actor-critic
agent), ``_structure_scorer`` (a clause list's reward: weight learning, fair MAP, utility),
``_fairness_priors`` (equalised odds and overestimation as reward priors),
``_clause_search`` (local search around the best list) and ``_a3sl`` (:class:`FairA3SL`).
The top of the relational family: nothing below imports it. Public names are exported from
:mod:`fairacq.relational`.
"""

__all__: list[str] = []
