"""Where the candidate rows live and how they are read.

An in-memory or Parquet pool behind one interface (``_pool_source.py``, ``_parquet_pool.py``,
``_pool_files.py``), the local feature copy and category codes a streamed pool reads rows from
by position (``_feature_cache.py``, ``_column_codes.py``), the chunked map over a pool, serial
or on dask (``_chunk_map.py``), whole-pool scoring (``_pool_scorer.py``) and the bought rows
read back (``_acquired_rows.py``). Every public name is exported from
:mod:`fairacq.acquisition`, so nothing is exported here.
"""

from __future__ import annotations

__all__: list[str] = []
