"""Time to load each bundled dataset (cold, first call in a fresh process, and cached)."""

from __future__ import annotations

import argparse
import subprocess
import sys
import time

from _common import parse_args, report, timeit

from fairacq.data import load_dataset

BUNDLED = ("adult", "compas", "german", "bank-marketing")


def main() -> None:
    quick = parse_args(argparse.ArgumentParser(description=__doc__)).quick
    rows = []
    for name in BUNDLED[-1:] if quick else BUNDLED:  # quick: one dataset, no cold process
        code = f"from fairacq.data import load_dataset; load_dataset({name!r})"
        start = time.perf_counter()
        if not quick:
            subprocess.run([sys.executable, "-c", code], check=True)
        cold = time.perf_counter() - start if not quick else float("nan")
        warm = timeit(lambda name=name: load_dataset(name), repeat=3)
        rows.append(
            {
                "dataset": name,
                "rows": len(load_dataset(name)),
                "cold_process_s": cold,
                "cached_ms": 1e3 * warm["median_s"],
            }
        )
    report("loaders", rows)


if __name__ == "__main__":
    main()
