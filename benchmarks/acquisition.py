"""Acquisition speed: time per method on Adult, and DataSift-Inf's scaling with pool size.

Prints two tables and writes ``benchmarks/out/acquisition.json``. Settings follow paper 000
§4.1.3 (budget 20% of the pool, batch 10% of the budget, tau 0.01, alpha 0.1, LR). For the
scaling curve the pool is DataSift's scaled-up Adult (§4.5) at 10^4, 10^5 and 10^6 rows with
a fixed budget, as the paper does; each size runs in its own process so that peak memory
(max RSS) is measured per run. Hidden one-off costs (BIC search, influence, regressor fit) are
inside the measured time.

``--quick``: random on the first 3,000 pool rows, and DataSift-Inf on a scaled pool of
36,000 rows with budget 200, all in this process (a smoke test; writes
``acquisition_*_quick.json``).
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time
import warnings

from _common import parse_args, report

METHODS = ("random", "entropy", "inf", "autodata", "datasift", "datasift-inf")


def _one(method: str, pool_rows: int | None, budget: int | None, seed: int) -> dict[str, float]:
    from fairacq.acquisition import PartitionDroppedWarning, make_acquirer
    from fairacq.data import load_dataset, split_datasift
    from fairacq.data.synthetic import make_scaled_adult

    start = time.perf_counter()
    data = load_dataset("adult", sensitive="sex")
    split = split_datasift(data, random_state=seed)
    pool = split.pool
    if pool_rows is not None:
        pool = (
            make_scaled_adult(pool, pool_rows, random_state=seed)
            if pool_rows > len(pool)
            else pool.subset(range(pool_rows))
        )
    loaded = time.perf_counter() - start
    n_budget = budget or round(0.2 * len(pool))
    bandit = {"alpha": 0.1} if method in ("autodata", "datasift", "datasift-inf") else {}
    acquirer = make_acquirer(
        method,
        budget=n_budget,
        batch_size=max(1, round(0.1 * n_budget)),
        learner="lr",
        tau=0.01,
        random_state=seed,
        **bandit,
    )
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PartitionDroppedWarning)
        trace = acquirer.fit(
            split.train, pool, validation=split.validation, test=split.test
        ).trace_
    total = time.perf_counter() - start
    t = acquirer.timings_
    evaluations = max(acquirer.n_evaluations_, 1)
    return {
        "pool": len(pool),
        "budget": n_budget,
        "load_s": loaded,
        "run_s": total,
        "prepare_s": t["prepare_s"],
        "propose_per_batch_ms": 1e3 * t["propose_s"] / evaluations,
        "fit_s": t["fit_s"],
        "evaluations": acquirer.n_evaluations_,
        "final_test_dp": float(trace.final("test_demographic_parity_diff_abs")),
        "stop": acquirer.stop_reason_,
    }


def _child(args: list[str]) -> None:
    method, pool_rows, budget, seed = args[0], int(args[1]), int(args[2]), int(args[3])
    out = _one(method, pool_rows or None, budget or None, seed)
    out["max_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps(out))


def _run_child(
    method: str, pool_rows: int, budget: int, seed: int, *, quick: bool = False
) -> dict[str, float]:
    if quick:  # in this process: no interpreter start per run
        out = _one(method, pool_rows or None, budget or None, seed)
        out["max_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        return out
    res = subprocess.run(
        [sys.executable, __file__, "--child", method, str(pool_rows), str(budget), str(seed)],
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(res.stdout.strip().splitlines()[-1])


def main() -> None:
    quick = parse_args(argparse.ArgumentParser(description=__doc__)).quick
    methods, pool_rows = (("random",), 3000) if quick else (METHODS, 0)
    sizes, budget = ((36_000,), 200) if quick else ((10_000, 100_000, 1_000_000), 2000)
    suffix = "_quick" if quick else ""
    per_method = []
    for method in methods:
        r = _run_child(method, pool_rows, 0, 0, quick=quick)
        per_method.append(
            {
                "method": method,
                "pool": r["pool"],
                "run_s": r["run_s"],
                "prepare_s": r["prepare_s"],
                "fit_s": r["fit_s"],
                "evaluations": r["evaluations"],
                "max_rss_mb": r["max_rss_mb"],
                "final_test_dp": r["final_test_dp"],
                "stop": r["stop"],
            }
        )
    report("acquisition_methods" + suffix, per_method)
    scaling = []
    for rows in sizes:
        r = _run_child("datasift-inf", rows, budget, 0, quick=quick)
        scaling.append(
            {
                "method": "datasift-inf",
                "pool": rows,
                "budget": budget,
                "run_s": r["run_s"],
                "prepare_s": r["prepare_s"],
                "propose_per_batch_ms": r["propose_per_batch_ms"],
                "fit_s": r["fit_s"],
                "max_rss_mb": r["max_rss_mb"],
                "final_test_dp": r["final_test_dp"],
            }
        )
    report("acquisition_scaling" + suffix, scaling)


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        _child(sys.argv[2:])
    else:
        main()
