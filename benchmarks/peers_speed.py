"""Speed of a round: Falcon against DataSift-Inf and Random on a large pool (Adult by sex).

Falcon's own figure is about 20 ms a round (5-8 CPU s for 400 rounds of 10 rows on ACS
Income); the goal for DataSift-Inf is a round under 50 ms on a 50k-row pool with logistic
regression. Adult (bundled, 45k rows) is split into 1,000 training, 1,000 validation and
5,000 test rows, the rest being the pool (about 38k rows). Each method runs a fixed number
of rounds (``--rounds``, batch ``--batch`` rows) with ``tau = 0`` so nothing stops it early;
the table gives the CPU seconds of the whole run, the one-off preparation (partitions,
influence; wall seconds from ``Acquirer.timings_``) and the milliseconds per round (propose +
refit + measure): in wall time after the preparation, and in CPU time of the whole run over
its rounds (the steadier figure on a shared machine).

``--data acs-income`` runs the same on ACS Income by sex over the 14 offline states
(``FAIRACQ_DATA`` must hold them), split per (group, label) cell as ``peers-rows`` does
(train : validation : pool : test = 1 : 1 : 8 : 4), with the categorical codes either kept
as numbers (``--codes``, Falcon's own encoding: 8 features) or one-hot encoded (the
default of fairacq's loader: 787 features).

Prints a table and writes ``benchmarks/out/peers_speed[_acs-income[_codes]].json``. Run with
``OMP_NUM_THREADS=1 PYTHONPATH=src python benchmarks/peers_speed.py [--rounds 40]``.
"""

from __future__ import annotations

import argparse
import time
import warnings
from typing import Any

import numpy as np
from _common import parse_args, report

SIZES = (1000, 1000, 5000)  # training, validation, test; the rest is the pool


def _split(seed: int) -> tuple[Any, Any, Any, Any]:
    from fairacq.data import load_dataset

    data = load_dataset("adult", sensitive="sex")
    order = np.random.default_rng(seed).permutation(len(data))
    cuts = np.cumsum(SIZES)
    train, val, test, pool = np.split(order, cuts)
    return tuple(data.subset(np.sort(p)) for p in (train, val, test, pool))  # type: ignore[return-value]


def _acs_split(seed: int, codes: bool) -> tuple[Any, Any, Any, Any]:
    from fairacq._random import spawn_seeds
    from fairacq.data import load_dataset
    from fairacq_experiments.peers._tasks import ACS_OFFLINE_STATES, split_cells

    data = load_dataset(
        "acs-income", states=ACS_OFFLINE_STATES, sensitive="sex", one_hot=not codes
    )
    train, val, pool, test = split_cells(data, spawn_seeds(seed, 1)[0])
    return train, val, test, pool


def _run(method: str, rounds: int, batch: int, parts: tuple[Any, ...]) -> dict[str, Any]:
    from fairacq.acquisition import make_acquirer

    train, val, test, pool = parts
    acq = make_acquirer(
        method,
        budget=rounds * batch,
        batch_size=batch,
        tau=0.0,
        max_evaluations=rounds,
        random_state=0,
    )
    start, wall = time.process_time(), time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        acq.fit(train, pool, validation=val, test=test)
    cpu, wall = time.process_time() - start, time.perf_counter() - wall
    prepare = float(acq.timings_.get("prepare_s", 0.0))
    n = max(1, int(acq.n_evaluations_))
    return {
        "method": method,
        "pool rows": len(pool),
        "features": int(pool.to_numpy().shape[1]),
        "rounds": n,
        "batch": batch,
        "cpu s": round(cpu, 2),
        "wall s": round(wall, 2),
        "prepare s": round(prepare, 2),
        "ms per round": round(1000 * (wall - prepare) / n, 1),
        "cpu ms per round": round(1000 * cpu / n, 1),
    }


def main() -> None:
    """Time each method on one split and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=40)
    parser.add_argument("--batch", type=int, default=10)
    parser.add_argument("--data", choices=("adult", "acs-income"), default="adult")
    parser.add_argument("--codes", action="store_true", help="ACS codes as numbers (Falcon's)")
    args = parse_args(parser)
    if args.quick:
        args.rounds, args.batch = 3, 10
    acs = args.data == "acs-income"
    parts = _acs_split(0, args.codes) if acs else _split(0)
    rows = [_run(m, args.rounds, args.batch, parts) for m in ("random", "falcon", "datasift-inf")]
    suffix = ("_acs-income" + ("_codes" if args.codes else "")) if acs else ""
    report("peers_speed" + suffix, rows)


if __name__ == "__main__":
    main()
