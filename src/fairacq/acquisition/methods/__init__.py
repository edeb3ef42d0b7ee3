"""The acquisition methods, one family per module.

Random, Entropy, Inf and DataSift (``_datasift.py`` with its partitions and scores:
``_partition.py``, ``_partition_pass.py``, ``_valuation_scores.py``), Falcon
(``_falcon.py``, ``_falcon_policies.py``), FAL (``_fal.py``), group thresholds after buying
(``_post_thresholds.py``) and fairacq's threshold-aware rows (``_threshold_aware.py``). Every
public name is exported from :mod:`fairacq.acquisition`, so nothing is exported here.
"""

from __future__ import annotations

__all__: list[str] = []
