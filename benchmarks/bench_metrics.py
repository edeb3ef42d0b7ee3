"""Vectorised fairacq metrics against fairlearn's MetricFrame-based ones, same inputs."""

from __future__ import annotations

import argparse
import functools

import numpy as np
from _common import parse_args, report, timeit

from fairacq.metrics import demographic_parity_diff_abs, equalized_odds_diff


def main() -> None:
    from fairlearn.metrics import demographic_parity_difference, equalized_odds_difference

    quick = parse_args(argparse.ArgumentParser(description=__doc__)).quick
    rows = []
    for n in (10_000,) if quick else (10_000, 100_000, 1_000_000):
        rng = np.random.default_rng(0)
        y, p, s = rng.integers(0, 2, n), rng.integers(0, 2, n), rng.integers(0, 4, n)
        cases = {
            "demographic parity": (
                functools.partial(demographic_parity_diff_abs, p, s),
                functools.partial(demographic_parity_difference, y, p, sensitive_features=s),
            ),
            "equalised odds": (
                functools.partial(equalized_odds_diff, y, p, s),
                functools.partial(equalized_odds_difference, y, p, sensitive_features=s),
            ),
        }
        for name, (ours, theirs) in cases.items():
            a, b = timeit(ours), timeit(theirs, repeat=3)
            rows.append(
                {
                    "metric": name,
                    "rows": n,
                    "fairacq_ms": 1e3 * a["median_s"],
                    "fairlearn_ms": 1e3 * b["median_s"],
                    "speed-up": b["median_s"] / a["median_s"],
                }
            )
    report("metrics", rows)


if __name__ == "__main__":
    main()
