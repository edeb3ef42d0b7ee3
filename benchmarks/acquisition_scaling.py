"""Scaling of random, entropy, Falcon and DataSift-Inf with the size of a streamed pool.

Synthetic Parquet pools (``_pools.py``: 20 numeric features, a 3-valued group) of 10^5, 10^6
and 4x10^6 rows, each built once into ``benchmarks/out/pools/`` (``$FAIRACQ_BENCH_CACHE``) and
reused; a 1,000-row training set, budget 2,000 rows, batches of 200, LR, seed 0, no Random
baseline beside the method (what ``fairacq acquire --no-baseline`` runs). Every run is a fresh
process (``ParquetPool``, chunks of 65,536 rows), so that its CPU time (user + system, start-up
included, as ``/usr/bin/time`` reports) and peak memory (max RSS) are its own; ``run_cpu_s``
is the acquisition alone. Each cell is the median over ``--repeats`` runs; a run still going
after ``--timeout`` seconds is stopped and reported as not done.

Printed beside the numbers, the goals: a log-log slope of CPU time against pool size of at
most 1.0 from 10^6 to 4x10^6 rows for every method (between the two largest sizes run), and
DataSift-Inf within 5x random's CPU time on the largest pool.

Usage::

    python benchmarks/acquisition_scaling.py                    # 10^5, 10^6, 4x10^6; 3 repeats
    python benchmarks/acquisition_scaling.py --sizes 100000 --repeats 1
    python benchmarks/acquisition_scaling.py --quick            # 2x10^4 rows, budget 400, here

Writes ``benchmarks/out/acquisition_scaling_streamed.json`` (per method and size, then one
row per goal).
"""

from __future__ import annotations

import argparse
import json
import math
import resource
import statistics
import subprocess
import sys
import time
import warnings
from pathlib import Path
from typing import Any

from _common import parse_args, report

METHODS = ("random", "entropy", "falcon", "datasift-inf")
SLOPE_GOAL, RATIO_GOAL = 1.0, 5.0


def _run(method: str, path: Path, budget: int, batch: int) -> dict[str, Any]:
    """One acquisition on the streamed pool at ``path``; its own CPU time and counts."""
    from _pools import labelled_start

    from fairacq.acquisition import ParquetPool, make_acquirer

    train, validation, test = labelled_start()
    pool = ParquetPool(path, like=train, label="label", sensitive="group")
    acquirer = make_acquirer(method, budget=budget, batch_size=batch, random_state=0)
    start = time.process_time()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        acquirer.fit(train, pool, validation=validation, test=test)
    return {
        "run_cpu_s": time.process_time() - start,
        "evaluations": int(acquirer.n_evaluations_),
        "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    }


def _child(argv: list[str]) -> None:
    import torch

    torch.set_num_threads(1)
    method, path, budget, batch = argv[0], Path(argv[1]), int(argv[2]), int(argv[3])
    print(json.dumps(_run(method, path, budget, batch)))


def _fresh_process(method: str, path: Path, args: argparse.Namespace) -> dict[str, Any]:
    """Run one acquisition in a new interpreter; its CPU from the children's rusage."""
    cmd = [sys.executable, __file__, "--child", method, str(path), str(args.budget)]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    try:
        done = subprocess.run(
            [*cmd, str(args.batch)], capture_output=True, text=True, timeout=args.timeout
        )
        out = json.loads(done.stdout.strip().splitlines()[-1]) if done.returncode == 0 else {}
        if done.returncode:
            print(done.stderr[-2000:], file=sys.stderr)
    except subprocess.TimeoutExpired:
        out = {}
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    return {"cpu_s": cpu, "done": bool(out), **out}


def _cell(method: str, rows: int, path: Path, args: argparse.Namespace) -> dict[str, Any]:
    """The median of ``--repeats`` runs of ``method`` on the pool of ``rows`` rows."""
    if args.quick:
        import fairacq.acquisition  # noqa: F401  (imported before the clock starts)

        start = time.process_time()
        runs = [{**_run(method, path, args.budget, args.batch), "done": True}]
        runs[0]["cpu_s"] = time.process_time() - start
    else:
        runs = [_fresh_process(method, path, args) for _ in range(args.repeats)]
    done = [r for r in runs if r["done"]]
    row: dict[str, Any] = {"method": method, "pool": rows, "runs": len(runs), "done": len(done)}
    if not done:
        empty = dict.fromkeys(("cpu_s", "run_cpu_s", "evaluations", "peak_mb"), "")
        return {**row, **empty, "status": f"not done after {args.timeout:g} s"}
    for key in ("cpu_s", "run_cpu_s", "evaluations"):
        row[key] = statistics.median(r[key] for r in done)
    row["peak_mb"] = round(max(r["peak_mb"] for r in done), 1)
    row["status"] = "done" if len(done) == len(runs) else f"{len(runs) - len(done)} not done"
    print(json.dumps(row), flush=True)
    return row


def goals(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The slope of each method between the two largest sizes, and DataSift-Inf / random."""
    sizes = sorted({r["pool"] for r in rows})
    cpu = {(r["method"], r["pool"]): r.get("cpu_s") for r in rows}
    out: list[dict[str, Any]] = []
    if len(sizes) >= 2:
        small, large = sizes[-2], sizes[-1]
        for method in dict.fromkeys(r["method"] for r in rows):
            a, b = cpu.get((method, small)), cpu.get((method, large))
            slope = math.log(b / a) / math.log(large / small) if a and b else None
            out.append(_goal(f"{method}: log-log slope {small:,} -> {large:,}", slope, SLOPE_GOAL))
    ds, rnd = cpu.get(("datasift-inf", sizes[-1])), cpu.get(("random", sizes[-1]))
    ratio = ds / rnd if ds and rnd else None
    out.append(_goal(f"datasift-inf / random CPU at {sizes[-1]:,}", ratio, RATIO_GOAL))
    return out


def _goal(name: str, value: float | None, goal: float) -> dict[str, Any]:
    met = "not measured" if value is None else ("yes" if value <= goal else "no")
    shown = "" if value is None else round(value, 2)
    return {"goal": name, "value": shown, "at most": goal, "met": met}


def main() -> None:
    from _pools import pool_file

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[100_000, 1_000_000, 4_000_000])
    parser.add_argument("--methods", nargs="+", default=list(METHODS), choices=METHODS)
    parser.add_argument("--repeats", type=int, default=3, help="runs per cell (median)")
    parser.add_argument("--timeout", type=float, default=1800.0, help="seconds before a stop")
    parser.add_argument("--budget", type=int, default=2000)
    parser.add_argument("--batch", type=int, default=200)
    args = parse_args(parser)
    if args.quick:
        args.sizes, args.budget, args.repeats = [20_000], 400, 1
    rows = []
    for size in args.sizes:
        path = pool_file(size)
        rows += [_cell(method, size, path, args) for method in args.methods]
    name = "acquisition_scaling_streamed" + ("_quick" if args.quick else "")
    report(name, rows)
    report(name + "_goals", goals(rows))


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        _child(sys.argv[2:])
    else:
        main()
