"""One acquisition step on a pool streamed from Parquet vs the same pool in memory.

Writes a synthetic pool (20 numeric features, a group with 3 values, a 0/1 label) to a
Parquet file in pieces of 100,000 rows (row groups of 65,536 rows), then
runs DataSift-Inf, entropy, Falcon and random with LR, batch 200 and budget 2,000 for a few
steps, each method and mode in its own process (so that peak memory, max RSS, is per run):
streamed (``ParquetPool``) and in memory (the file read by pandas into a ``FairDataset``).
A step's time is the wall and the CPU time between two steps (median over the steps after
the first, whose time, which includes writing a streamed pool's local copy of its features
for methods that prepare nothing, is shown apart); "prepare" is the method's one-off work
before the first step; ``stream_vs_memory`` compares CPU times (steadier on a shared
machine). Both modes must acquire the same rows. Prints a table and writes
``benchmarks/out/streamed_step.json``.

Usage: ``python benchmarks/streamed_step.py [--quick] [--out DIR]`` (full: 10^6 rows, one
process per case; quick: 10^5 rows and 4 steps, every case in this process so no peak
memory, under 20 s of CPU).
"""

from __future__ import annotations

import argparse
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
FEATURES = 20
BUDGET, BATCH, STEPS, SEED = 2000, 200, 6, 0
METHODS = ["datasift-inf", "entropy", "falcon", "random"]
GROUPS = ("a", "b", "c")


def _frame(rows: int, seed: int):
    """Return ``rows`` synthetic rows: features, a 3-valued group and a 0/1 label."""
    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(seed)
    group = rng.choice(3, size=rows, p=[0.6, 0.3, 0.1])
    X = rng.normal(size=(rows, FEATURES)) + 0.5 * group[:, None]
    w = np.linspace(-1.0, 1.0, FEATURES)
    logit = X @ w - 0.8 * (group == 2) + rng.normal(scale=0.5, size=rows)
    frame = pd.DataFrame(X, columns=[f"x{j}" for j in range(FEATURES)])
    frame["group"] = np.array(GROUPS)[group]
    frame["label"] = (logit > 0).astype(np.int64)
    return frame


def _dataset(rows: int, seed: int):
    from fairacq.data import FairDataset

    frame = _frame(rows, seed)
    return FairDataset(
        frame.drop(columns=["group", "label"]),
        frame["label"].to_numpy(),
        frame[["group"]],
        name="synthetic",
    )


def _write(rows: int, path: Path) -> dict[str, float]:
    """Write the pool in pieces (never all of it in memory)."""
    from _pools import write_pieces

    start = time.perf_counter()
    pieces = (
        _frame(min(PIECE, rows - first), SEED + 100 + k)
        for k, first in enumerate(range(0, rows, PIECE))
    )
    write_pieces(path, pieces, ROW_GROUP)
    return {"write_s": time.perf_counter() - start, "mb": path.stat().st_size / 2**20}


def _pool(mode: str, path: Path, train):
    import pandas as pd

    from fairacq.acquisition import ParquetPool
    from fairacq.data import FairDataset

    if mode == "stream":
        return ParquetPool(path, like=train, label="label", sensitive="group")
    frame = pd.read_parquet(path)
    return FairDataset(
        frame[train.feature_names], frame["label"].to_numpy(), frame[["group"]], name="pool"
    )


def _one(mode: str, method: str, path: Path) -> dict[str, object]:
    import numpy as np

    from fairacq.acquisition import PartitionDroppedWarning, make_acquirer

    train, validation = _dataset(2000, SEED + 1), _dataset(2000, SEED + 2)
    start = time.perf_counter()
    pool = _pool(mode, path, train)
    loaded = time.perf_counter() - start
    params = {"budget": BUDGET, "batch_size": BATCH, "learner": "lr", "random_state": SEED}
    if method == "datasift-inf":
        params.update(tau=0.0, alpha=0.1)
    acquirer = make_acquirer(method, max_evaluations=STEPS, **params)
    stamps: list[tuple[float, float]] = []

    def clock(recorder: object) -> None:
        stamps.append((time.perf_counter(), time.process_time()))

    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PartitionDroppedWarning)
        acquirer.fit(train, pool, validation=validation, callbacks=[clock])
    wall, cpu = (np.diff(np.array(stamps)[:, k]) for k in (0, 1))
    return {
        "method": method,
        "mode": mode,
        "load_s": loaded,
        "prepare_s": acquirer.timings_["prepare_s"],
        "run_s": time.perf_counter() - start,
        "first_step_ms": 1e3 * float(wall[0]),
        "step_ms": 1e3 * float(np.median(wall[1:])),
        "step_cpu_ms": 1e3 * float(np.median(cpu[1:])),
        "steps": int(wall.size),
        "order": acquirer.acquired_.tolist(),
    }


def _child(args: list[str]) -> None:
    if args[0] == "write":
        out = _write(int(args[2]), Path(args[1]))
    else:
        out = _one(args[0], args[1], Path(args[2]))
    out["max_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    out["cpu_s"] = time.process_time()
    print(json.dumps(out))


def _run_child(*args: str) -> dict[str, object]:
    res = subprocess.run(
        [sys.executable, __file__, "--child", *args], capture_output=True, text=True, check=True
    )
    return json.loads(res.stdout.strip().splitlines()[-1])


def _run_here(*args: str) -> dict[str, object]:
    """Run one case in this process (quick mode: no start-up per case, no peak memory)."""
    out = (
        _write(int(args[2]), Path(args[1]))
        if args[0] == "write"
        else _one(*args[:2], Path(args[2]))
    )
    return {**out, "max_rss_mb": None, "cpu_s": None}


def main(rows: int, *, quick: bool) -> None:
    global STEPS
    run = _run_here if quick else _run_child
    STEPS = 4 if quick else STEPS
    out = []
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "pool.parquet"
        written = run("write", str(path), str(rows))
        for method in METHODS:
            memory = run("memory", method, str(path))
            stream = run("stream", method, str(path))
            for r in (memory, stream):
                out.append(
                    {
                        "method": method,
                        "mode": r["mode"],
                        "pool": rows,
                        "file_mb": written["mb"],
                        "load_s": r["load_s"],
                        "prepare_s": r["prepare_s"],
                        "first_step_ms": r["first_step_ms"],
                        "step_ms": r["step_ms"],
                        "step_cpu_ms": r["step_cpu_ms"],
                        "stream_vs_memory": r["step_cpu_ms"] / memory["step_cpu_ms"],
                        "steps": r["steps"],
                        "cpu_s": r["cpu_s"],
                        "max_rss_mb": r["max_rss_mb"],
                        "same_order": stream["order"] == memory["order"],
                    }
                )
    report("streamed_step", out)


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        _child(sys.argv[2:])
    else:
        args = parse_args(argparse.ArgumentParser(description=__doc__.splitlines()[0]))
        main(100_000 if args.quick else 1_000_000, quick=args.quick)
