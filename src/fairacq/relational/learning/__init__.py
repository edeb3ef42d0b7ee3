"""Rule-weight learning for ground hinge-loss MRFs (PSL's voted perceptron).

Builds on :mod:`~fairacq.relational.inference` (each step runs MAP inference). Public names
are exported from :mod:`fairacq.relational`.
"""

__all__: list[str] = []
