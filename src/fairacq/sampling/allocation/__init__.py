"""The answer to "how many rows of each group should I collect?".

The budget read as a count or a share (``_budget.py``), a sampler run in independent trials
(``_trials.py``), the counts to act on (``_recommend.py``), the verdict against Uniform
(``_versus_baseline.py``), the result that holds them (``_allocation.py``), the function
that builds it (``_allocate.py``) and the files it is written to (``_allocation_files.py``).
Every public name is exported from :mod:`fairacq.sampling`, so nothing is exported here.
"""

from __future__ import annotations

__all__: list[str] = []
