"""Serial against 2 local worker processes (a process pool, dask) on dask's two use cases.

- ``trials``: independent trials of an experiment (``demo-datasift``: DataSift-Inf and Random
  on Adult, each trial loading and splitting the data itself), ``--trials`` of them, run
  serially, on a 2-process pool (``LocalExecutor``), on a dask cluster of 2 one-thread worker
  processes started for the run (``DaskExecutor()``, what ``--executor dask`` without an
  address does), and on such a cluster already running (``DaskExecutor(address)``, as a real
  cluster would be: its workers have imported fairacq).
- ``chunks``: one acquisition on a streamed synthetic pool (``_pools.py``; ``--rows`` rows for
  entropy, ``--datasift-rows`` for DataSift-Inf;
  budget 2,000, batch 200) whose pool chunks are scored here or on a running 2-worker
  cluster (``DaskChunkExecutor``): entropy (scores the whole pool every step) and
  DataSift-Inf (partitions and scores the pool once, then steps on its own).

Each case runs in a fresh process; ``wall_s`` and ``cpu_s`` cover the timed call only (CPU of
the process, of its finished children and of its live worker processes: the whole machine's
work), ``process_cpu_s`` the whole process, start-up and cluster start included. The speed-up
is serial wall time over the case's. ``--quick``: 1 trial of Random on German credit and
entropy on a 5,000-row pool,
with dask's in-process (thread) cluster, all in this process: a smoke test.

Writes ``benchmarks/out/executors.json``; docs/results/benchmarks-dask.md is written from it.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from _common import parse_args, report

TRIAL_CASES = ("serial", "process pool x2", "dask x2 (started)", "dask x2 (running)")
CHUNK_CASES = ("serial", "dask x2 (running)")


def _cpu_now() -> float:
    """CPU seconds of this process, its reaped children and its live descendants."""
    import psutil

    total = 0.0
    for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN):
        r = resource.getrusage(who)
        total += r.ru_utime + r.ru_stime
    for proc in psutil.Process().children(recursive=True):
        try:
            t = proc.cpu_times()
            total += t.user + t.system
        except psutil.Error:  # ended between the listing and the reading
            pass
    return total


@contextmanager
def _running_cluster(processes: bool = True) -> Iterator[str]:
    """A 2-worker local cluster whose workers have imported fairacq; yields its address."""
    from distributed import Client

    from fairacq.parallel._dask import local_cluster

    with local_cluster(2, processes=processes) as cluster, Client(cluster) as client:
        client.run(__import__, "fairacq_experiments")
        client.run(__import__, "fairacq.acquisition")
        yield cluster.scheduler_address


def _trials(case: str, n_trials: int, quick: bool) -> Callable[[], Any]:
    from fairacq_experiments import DaskExecutor, LocalExecutor, SerialExecutor, run_experiment

    extra = {"methods": ("random",), "dataset": "german"} if quick else {}

    def go(executor: Any) -> Any:
        return run_experiment("demo-datasift", executor=executor, n_trials=n_trials, **extra)

    if case == "serial":
        return lambda: go(SerialExecutor())
    if case == "process pool x2":
        return lambda: go(LocalExecutor(2))
    if case == "dask x2 (started)":
        return lambda: go(DaskExecutor(n_workers=2))
    return lambda address: go(DaskExecutor(address))


def _chunks(method: str, rows: int, case: str) -> Callable[..., Any]:
    from _pools import labelled_start, pool_file

    from fairacq.acquisition import DaskChunkExecutor, ParquetPool, make_acquirer

    train, validation, test = labelled_start()
    pool = ParquetPool(pool_file(rows), like=train, label="label", sensitive="group")

    def go(executor: Any = None) -> Any:
        acquirer = make_acquirer(method, budget=2000, batch_size=200, random_state=0)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            acquirer.fit(train, pool, validation=validation, test=test, executor=executor)
        return acquirer.acquired_.tolist()

    if case == "serial":
        return go
    return lambda address: _with_client(address, lambda c: go(DaskChunkExecutor(client=c)))


def _with_client(address: str, fn: Callable[[Any], Any]) -> Any:
    from distributed import Client

    with Client(address) as client:
        return fn(client)


def measure(kind: str, case: str, args: argparse.Namespace) -> dict[str, Any]:
    """Time one case: wall and whole-machine CPU of the timed call only."""
    method = kind.split(":")[1] if ":" in kind else ""
    fn = (
        _trials(case, args.trials, args.quick)
        if kind == "trials"
        else _chunks(method, _rows(kind, args), case)
    )
    with _running_cluster(not args.quick) if "running" in case else _nothing() as address:
        cpu, wall = _cpu_now(), time.perf_counter()
        result = fn(address) if address else fn()
        wall, cpu = time.perf_counter() - wall, _cpu_now() - cpu
    order = result if isinstance(result, list) else None
    return {"wall_s": wall, "cpu_s": cpu, "order": order}


@contextmanager
def _nothing() -> Iterator[None]:
    yield None


def _child(argv: list[str]) -> None:
    args = json.loads(argv[2])
    out = measure(argv[0], argv[1], argparse.Namespace(**args))
    r = resource.getrusage(resource.RUSAGE_SELF)
    print(json.dumps({**out, "peak_mb": r.ru_maxrss / 1024}))


def _fresh(kind: str, case: str, args: argparse.Namespace) -> dict[str, Any]:
    """Run :func:`measure` in a new interpreter; add its whole-process CPU."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    cmd = [sys.executable, __file__, "--child", kind, case, json.dumps(vars(args), default=str)]
    done = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if done.returncode:
        raise SystemExit(f"{kind} / {case} failed:\n{done.stderr[-3000:]}")
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    out = json.loads(done.stdout.strip().splitlines()[-1])
    out["process_cpu_s"] = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=8, help="trials of demo-datasift")
    parser.add_argument("--rows", type=int, default=1_000_000, help="entropy's streamed pool")
    parser.add_argument("--datasift-rows", type=int, default=100_000, help="DataSift-Inf's")
    parser.add_argument("--only", choices=("trials", "chunks"), default=None)
    args = parse_args(parser)
    if args.quick:
        args.trials, args.rows, args.datasift_rows = 1, 5_000, 5_000
    jobs = [] if args.only == "chunks" else [("trials", c) for c in TRIAL_CASES]
    if args.only != "trials":
        jobs += [(f"chunks:{m}", c) for m in ("entropy", "datasift-inf") for c in CHUNK_CASES]
    if args.quick:  # serial and dask's thread cluster, here; no DataSift
        jobs = [j for j in jobs if j[1] in CHUNK_CASES and "datasift" not in j[0]]
    rows: list[dict[str, Any]] = []
    serial: dict[str, dict[str, Any]] = {}  # the serial run of each use, to compare with
    for kind, case in jobs:
        run = measure(kind, case, args) if args.quick else _fresh(kind, case, args)
        serial.setdefault(kind, run)
        rows.append(_row(kind, case, run, serial[kind], args))
        print(json.dumps(rows[-1]), flush=True)
    report("executors" + ("_quick" if args.quick else ""), rows)


def _row(
    kind: str, case: str, run: dict[str, Any], serial: dict[str, Any], a: argparse.Namespace
) -> dict[str, Any]:
    same = "" if run["order"] is None else run["order"] == serial["order"]
    return {
        "use": kind,
        "size": f"{a.trials} trials" if kind == "trials" else f"{_rows(kind, a):,} rows",
        "executor": case,
        "wall_s": round(run["wall_s"], 2),
        "cpu_s": round(run["cpu_s"], 2),
        "process_cpu_s": round(run.get("process_cpu_s", float("nan")), 2),
        "peak_mb": round(run.get("peak_mb", float("nan")), 1),
        "speed_up": round(serial["wall_s"] / run["wall_s"], 2),
        "same_rows": same,
        "load_avg": round(os.getloadavg()[0], 2),
    }


def _rows(kind: str, a: argparse.Namespace) -> int:
    return int(a.datasift_rows if "datasift" in kind else a.rows)


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        _child(sys.argv[2:])
    else:
        main()
