"""Streamed pools: DataSift-Inf on a scaled Adult pool read chunk by chunk from Parquet.

Writes DataSift's scaled-up Adult pool (paper 000, §4.5; ``make_scaled_adult``) to a Parquet
file in pieces of 100,000 rows (row groups of 65,536 rows), then runs DataSift-Inf with LR,
budget 2,000 and batch 200 (tau 0.01, alpha 0.1) on it twice, each in its own process so that
peak memory (max RSS) is per run: streamed (``ParquetPool``, chunks of 65,536 rows) and in
memory (the same file read by pandas into a ``FairDataset``). Both runs must acquire the same
rows. Prints a table and writes ``benchmarks/out/acquisition_streaming.json``.

Usage: ``python benchmarks/acquisition_streaming.py [ROWS ...]`` (default: 10^6 streamed and
in memory, 3x10^6 streamed). ``--quick``: 40,000 rows (the smallest scaled pool), budget 200,
batch 200, all in this process (a smoke test; writes ``acquisition_streaming_quick.json``).
"""

from __future__ import annotations

import argparse
import functools
import json
import resource
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

from _common import parse_args, report

PIECE = 100_000
ROW_GROUP = 65_536
BUDGET, BATCH, SEED = 2000, 200, 0


@functools.cache  # the quick run calls it three times in one process
def _split():
    from fairacq.data import load_dataset, split_datasift

    return split_datasift(load_dataset("adult", sensitive="sex"), random_state=SEED)


def _write(rows: int, path: Path) -> dict[str, float]:
    """Write a scaled Adult pool of ``rows`` rows in pieces (never all of it in memory)."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.parquet as pq

    from fairacq.data.synthetic import make_scaled_adult

    start = time.perf_counter()
    split = _split()
    base = split.pool
    attrs = list(split.train.sensitive_attrs)
    writer = None
    written = 0
    seeds = np.random.SeedSequence(SEED).spawn(rows // PIECE + 2)
    try:
        for k, seed in enumerate(seeds):
            if written >= rows:
                break
            extra = min(PIECE, rows - written) if k else min(PIECE, rows - len(base))
            grown = make_scaled_adult(base, len(base) + extra, random_state=seed)
            piece = grown if k == 0 else grown.subset(np.arange(len(base), len(base) + extra))
            frame = piece.X.assign(label=piece.y)
            for a in attrs:
                frame[a] = piece.sensitive[a].to_numpy()
            table = pa.Table.from_pandas(frame, preserve_index=False)
            if writer is None:
                writer = pq.ParquetWriter(path, table.schema)
            writer.write_table(table, row_group_size=ROW_GROUP)
            written += len(frame)
    finally:
        if writer is not None:
            writer.close()
    return {
        "rows": written,
        "write_s": time.perf_counter() - start,
        "mb": path.stat().st_size / 2**20,
    }


def _one(mode: str, path: Path, budget: int = BUDGET) -> dict[str, object]:
    import pandas as pd

    from fairacq.acquisition import ParquetPool, PartitionDroppedWarning, make_acquirer
    from fairacq.data import FairDataset

    start = time.perf_counter()
    split = _split()
    train = split.train
    attrs = list(train.sensitive_attrs)
    if mode == "stream":
        pool = ParquetPool(path, like=train, label="label", sensitive=attrs, chunk_rows=ROW_GROUP)
    else:
        frame = pd.read_parquet(path)
        pool = FairDataset(
            frame[train.feature_names],
            frame["label"].to_numpy(),
            frame[attrs],
            feature_groups=train.feature_groups,
            privileged=train.privileged,
            name="pool",
        )
        del frame
    loaded = time.perf_counter() - start
    acquirer = make_acquirer(
        "datasift-inf",
        budget=budget,
        batch_size=BATCH,
        learner="lr",
        tau=0.01,
        alpha=0.1,
        random_state=SEED,
    )
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PartitionDroppedWarning)
        trace = acquirer.fit(train, pool, validation=split.validation, test=split.test).trace_
    total = time.perf_counter() - start
    t = acquirer.timings_
    evaluations = max(acquirer.n_evaluations_, 1)
    return {
        "mode": mode,
        "pool": len(pool),
        "load_s": loaded,
        "run_s": total,
        "prepare_s": t["prepare_s"],
        "propose_per_batch_ms": 1e3 * t["propose_s"] / evaluations,
        "fit_s": t["fit_s"],
        "evaluations": acquirer.n_evaluations_,
        "final_test_dp": float(trace.final("test_demographic_parity_diff_abs")),
        "order": acquirer.acquired_.tolist(),
    }


def _child(args: list[str]) -> None:
    import torch

    torch.set_num_threads(1)
    kind, path = args[0], Path(args[1])
    out = _write(int(args[2]), path) if kind == "write" else _one(kind, path)
    out["max_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps(out))


def _run_child(*args: str, quick: bool = False) -> dict[str, object]:
    if quick:  # in this process, budget 200: a smoke test
        kind, path = args[0], Path(args[1])
        out = _write(int(args[2]), path) if kind == "write" else _one(kind, path, 200)
        out["max_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        return out
    res = subprocess.run(
        [sys.executable, __file__, "--child", *args], capture_output=True, text=True, check=True
    )
    return json.loads(res.stdout.strip().splitlines()[-1])


def main(sizes: list[tuple[int, bool]], *, quick: bool = False) -> None:
    rows_out = []
    with tempfile.TemporaryDirectory() as tmp:
        for rows, with_memory in sizes:
            path = Path(tmp) / f"pool_{rows}.parquet"
            w = _run_child("write", str(path), str(rows), quick=quick)
            runs = [_run_child("stream", str(path), quick=quick)]
            if with_memory:
                runs.append(_run_child("memory", str(path), quick=quick))
            same = all(r["order"] == runs[0]["order"] for r in runs)
            for r in runs:
                rows_out.append(
                    {
                        "mode": r["mode"],
                        "pool": r["pool"],
                        "file_mb": w["mb"],
                        "write_s": w["write_s"],
                        "load_s": r["load_s"],
                        "run_s": r["run_s"],
                        "prepare_s": r["prepare_s"],
                        "propose_per_batch_ms": r["propose_per_batch_ms"],
                        "fit_s": r["fit_s"],
                        "evaluations": r["evaluations"],
                        "max_rss_mb": r["max_rss_mb"],
                        "final_test_dp": r["final_test_dp"],
                        "same_order": same,
                    }
                )
            path.unlink()
    report("acquisition_streaming" + ("_quick" if quick else ""), rows_out)


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        _child(sys.argv[2:])
    else:
        parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
        parser.add_argument("rows", type=int, nargs="*", help="pool sizes (each also in memory)")
        args = parse_args(parser)
        if args.quick:
            main([(40_000, True)], quick=True)
        elif args.rows:
            main([(r, True) for r in args.rows])
        else:
            main([(1_000_000, True), (3_000_000, False)])
