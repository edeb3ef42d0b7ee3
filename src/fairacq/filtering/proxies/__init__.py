"""The proxies of the balanced filter and what builds them (Deng et al.).

A proxy ``z_hat(x)`` predicts a few values from a candidate's features, standing in for the
sensitive group the filter may not see: the naive and QP regression / tree proxies and the
fitted proxy they return (``_proxies.py``), the :class:`AlphaBetaProxy` tree of Algorithm 4
(``_tree.py``) grown split by split (``_tree_builder.py``, one trace row and checkpoint per
split through the shared run loop: ``_tree_loop.py``) from the Lagrangian split game of
Algorithm 3 (``_lagrangian.py``), the portable prediction rules they apply
(``_rules.py``: ``LinearRule``, ``TreeRule``, ``RandomizedTreeRule``), their plain JSON form
(``_serialize.py``) and proxies built and fitted by name (``_factory.py``). The proxies use
the family's base (Algorithm 1's weights, group membership, intersecting groups) and never
the filter that applies them; every public name is exported from :mod:`fairacq.filtering`,
so nothing is exported here.
"""

from __future__ import annotations

__all__: list[str] = []
