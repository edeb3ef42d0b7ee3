"""The cost of an Entropy and a Falcon round before and after the checked fast pool scorer.

Entropy ranks the whole pool by the current model's probabilities every round, Falcon
(``lam=1``) the target group's rows and the validation rows. Both score through the run's
checked fast scorer (:meth:`~fairacq.acquisition.loop._exact_refit.ExactRefit.scorer`:
``predict_proba``'s arithmetic without scikit-learn's per-call checks and copies), and
Falcon gathers the target group's rows from its scorer's C-contiguous copy of an in-memory
pool (:meth:`~fairacq.acquisition.pools._pool_scorer.PoolScorer.read_rows`). ``before`` runs
the same code with that scorer replaced by :func:`~fairacq.models.predict_scores` and the rows
read from the pool itself (the path every round took before); ``after`` as shipped. Both
in this process, on the same split and seed; the two must pick the same rows (checked:
``same_rows``).

Reported per data set and method: CPU milliseconds per round (``time.process_time`` of the
whole ``fit`` divided by its rounds, median of 3 repeats), the same for the rounds'
proposals alone (wall time of ``timings_["propose_s"]``), and the ratio after / before.

Data: ACS Income by sex (14 offline states, one-hot, sensitive columns among the features)
and COMPAS by race, split by Falcon's recipe (each (group, label) cell split 1 : 1 : 8 : 4;
:func:`fairacq_experiments.peers._tasks.split_cells`, seed ``spawn_seeds(4242, 1)[0]``); 10
rounds of 10 rows. ``FAIRACQ_DATA`` must hold them; a data set it lacks is skipped.
``--quick``: a toy data set, one repeat (a few seconds; its numbers measure nothing).

Run: ``OMP_NUM_THREADS=1 PYTHONPATH=src python benchmarks/pool_scoring.py``. Writes
``pool_scoring.json`` (``benchmarks/out/`` or ``--out``).
"""

from __future__ import annotations

import argparse
import statistics
import time
import warnings
from contextlib import nullcontext
from typing import Any
from unittest import mock

import numpy as np
from _common import parse_args, report

ROUNDS, BATCH, SPLIT_SEED = 10, 10, 4242
METHODS = {"entropy": {}, "falcon": {"lam": 1.0}}


def _splits(name: str) -> tuple[Any, ...] | None:
    """Train, validation, pool and test of ``name`` (None when FAIRACQ_DATA lacks it)."""
    from fairacq._random import spawn_seeds

    if name == "toy":
        from fairacq.data import load_toy

        ds = load_toy(3_000, random_state=0)
        parts = np.array_split(np.random.default_rng(0).permutation(len(ds)), [300, 600, 2_400])
        train, val, pool, test = (ds.subset(np.sort(p)) for p in parts)
        return train, val, pool, test
    from fairacq.data.loaders import DatasetNotFoundError
    from fairacq_experiments.peers._tasks import load_rows_dataset, split_cells

    try:
        data = load_rows_dataset(name, True)
    except DatasetNotFoundError:
        print(f"skipped {name}: not found under FAIRACQ_DATA")
        return None
    return tuple(split_cells(data, spawn_seeds(SPLIT_SEED, 1)[0], None))


def _run(method: str, parts: tuple[Any, ...], *, before: bool) -> tuple[float, float, list]:
    """CPU seconds of one run, its proposals' seconds, and the rows it bought."""
    from fairacq._random import child, spawn_seeds
    from fairacq.acquisition import make_acquirer
    from fairacq.acquisition.loop._exact_refit import ExactRefit
    from fairacq.acquisition.pools._pool_scorer import PoolScorer
    from fairacq.models import predict_scores

    train, val, pool, test = parts
    acq = make_acquirer(
        method,
        budget=ROUNDS * BATCH,
        batch_size=BATCH,
        learner="lr",
        metric="demographic_parity_diff_abs",
        random_state=child(spawn_seeds(SPLIT_SEED, 1)[0], 3),
        **METHODS[method],
    )
    old_scores = mock.patch.object(ExactRefit, "scorer", return_value=predict_scores)
    old_rows = mock.patch.object(PoolScorer, "read_rows", new=_pool_read_rows)
    with (
        old_scores if before else nullcontext(),
        old_rows if before else nullcontext(),
        warnings.catch_warnings(),
    ):
        warnings.simplefilter("ignore")  # lbfgs may stop at max_iter on a small training set
        start = time.process_time()
        acq.fit(train, pool, validation=val, test=test)
        cpu = time.process_time() - start
    return cpu, acq.timings_["propose_s"], acq.trace_.to_frame()["batch"].tolist()


def _pool_read_rows(scorer: Any, positions: Any) -> Any:
    """The rows as the pool reads them (what Falcon read before the scorer's copy)."""
    return scorer.pool.read_rows(positions)


def measure(name: str, method: str, parts: tuple[Any, ...], repeat: int) -> dict[str, Any]:
    """One table row: ``method`` on ``name``, before and after, median of ``repeat`` runs."""
    runs: dict[bool, list[tuple[float, float, list]]] = {True: [], False: []}
    for _ in range(repeat):  # interleaved: a busy spell of the machine hits both
        for before in (True, False):
            runs[before].append(_run(method, parts, before=before))
    rounds = len(runs[False][0][2]) - 1
    ms = {b: statistics.median(r[0] for r in runs[b]) * 1000 / rounds for b in runs}
    prop = {b: statistics.median(r[1] for r in runs[b]) * 1000 / rounds for b in runs}
    return {
        "data": name,
        "method": method,
        "pool_rows": len(parts[2]),
        "features": parts[0].to_numpy().shape[1],
        "rounds": rounds,
        "before_cpu_ms_per_round": round(ms[True], 1),
        "after_cpu_ms_per_round": round(ms[False], 1),
        "ratio": round(ms[False] / ms[True], 3),
        "before_propose_ms": round(prop[True], 1),
        "after_propose_ms": round(prop[False], 1),
        "same_rows": all(r[2] == runs[True][0][2] for b in runs for r in runs[b]),
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    args = parse_args(parser, argv)
    names, repeat = (["toy"], 1) if args.quick else (["acs-income", "compas"], 3)
    rows = []
    for name in names:
        parts = _splits(name)
        if parts is None:
            continue
        rows += [measure(name, method, parts, repeat) for method in METHODS]
    if not rows:
        raise SystemExit("no data set found: set FAIRACQ_DATA to the shared data folder")
    report("pool_scoring" + ("_quick" if args.quick else ""), rows)
    if not all(r["same_rows"] for r in rows):
        raise SystemExit("the fast scorer changed the rows bought: see same_rows")


if __name__ == "__main__":
    main()
