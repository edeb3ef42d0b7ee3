"""The reference PSL (Java, through ``pslpython``) on the same rules and data.

``_pslpython`` (:func:`run_psl`, :func:`psl_fairness`): cross-checks and benchmarks of the
grounding and MAP inference against PSL itself. The JVM starts only when :func:`run_psl` is
called. Public names are exported from :mod:`fairacq.relational`.
"""

__all__: list[str] = []
