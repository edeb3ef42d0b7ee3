"""Synthetic Parquet pools for the scaling and dask benchmarks, built once and cached.

A pool has 20 numeric features (``x0`` .. ``x19``), a 3-valued group (``group``: a, b, c, in
shares 0.5 / 0.3 / 0.2) that shifts the first five features and the label's base rate, and a
0/1 ``label``. It is written in pieces of 100,000 rows (row groups of 65,536 rows), so no
more than a piece is ever in memory, to ``<cache>/pool_<rows>.parquet``; an existing file of
the right size is reused. The labelled start (training, validation, test rows) comes from the
same distribution with another seed, and is small enough to hold in memory.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import numpy as np

N_FEATURES, ROW_GROUP, PIECE = 20, 65_536, 100_000
FEATURES = [f"x{i}" for i in range(N_FEATURES)]
#: Default cache folder (``$FAIRACQ_BENCH_CACHE`` overrides it).
CACHE = Path(__file__).resolve().parent / "out" / "pools"


def cache_dir() -> Path:
    """The folder the pools are cached in (``$FAIRACQ_BENCH_CACHE`` or benchmarks/out/pools)."""
    return Path(os.environ.get("FAIRACQ_BENCH_CACHE") or CACHE)


def synthetic_frame(n: int, rng: np.random.Generator) -> Any:
    """``n`` rows: group-shifted features and a label whose base rate differs by group."""
    import pandas as pd

    group = rng.choice(3, size=n, p=[0.5, 0.3, 0.2])
    X = rng.standard_normal((n, N_FEATURES)) + 0.5 * group[:, None] * (np.arange(N_FEATURES) < 5)
    logit = X @ np.linspace(1.0, -1.0, N_FEATURES) / 3 + np.array([0.8, -0.4, -1.0])[group]
    y = (rng.random(n) < 1 / (1 + np.exp(-logit))).astype(np.int64)
    frame = pd.DataFrame(X, columns=FEATURES)
    return frame.assign(label=y, group=np.array(["a", "b", "c"])[group])


def labelled_start(seed: int = 0) -> tuple[Any, Any, Any]:
    """Training (1,000 rows), validation (1,000) and test (2,000) sets as FairDatasets."""
    from fairacq.data import FairDataset

    frame = synthetic_frame(4000, np.random.default_rng([seed, 1]))
    parts = (frame.iloc[:1000], frame.iloc[1000:2000], frame.iloc[2000:])
    return tuple(  # type: ignore[return-value]
        FairDataset(p[FEATURES], p["label"].to_numpy(), p[["group"]], name=n)
        for p, n in zip(parts, ("train", "validation", "test"), strict=True)
    )


def write_pieces(path: Path, frames: Iterable[Any], row_group: int = ROW_GROUP) -> None:
    """Write data frames one after another into one Parquet file (one piece in memory)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    writer = None
    try:
        for frame in frames:
            table = pa.Table.from_pandas(frame, preserve_index=False)
            if writer is None:
                writer = pq.ParquetWriter(path, table.schema)
            writer.write_table(table, row_group_size=row_group)
    finally:
        if writer is not None:
            writer.close()


def pool_file(rows: int, seed: int = 0) -> Path:
    """Return the cached pool of ``rows`` rows, writing it first if absent."""
    import pyarrow.parquet as pq

    path = cache_dir() / f"pool_{rows}_{seed}.parquet"
    if path.exists() and pq.ParquetFile(path).metadata.num_rows == rows:
        return path
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_suffix(".partial")
    rngs = [
        np.random.default_rng(s) for s in np.random.SeedSequence(seed).spawn(rows // PIECE + 1)
    ]
    pieces = (
        synthetic_frame(min(PIECE, rows - start), rngs[k])
        for k, start in enumerate(range(0, rows, PIECE))
    )
    write_pieces(partial, pieces)
    partial.replace(path)
    return path
