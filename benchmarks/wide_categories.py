"""Peak memory of ``fairacq audit`` on a table with one text column of many categories.

A 60,000-row table (the size of Adult) with a numeric column, a group, a label and one text
column of ``--categories`` distinct values (default 20,000, each a few rows) is written to a
temporary CSV; ``fairacq audit`` runs on it in a fresh interpreter, as a user types it, and the
child's peak resident memory (``getrusage`` of the children: kilobytes on Linux) and wall time
are reported. Goal: under 1 GB. A dense one-hot encoding of the text column would ask for
about 60,000 x 20,000 x 8 bytes = 9.6 GB; fairacq caps each text column at 50 one-hot columns
(the rarest values grouped as "(other)", with a warning). Prints a table and writes
``benchmarks/out/wide_categories.json``.
"""

from __future__ import annotations

import argparse
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd
from _common import parse_args, report

RUN = "import sys; from fairacq.cli import main; sys.argv[0] = 'fairacq'; main()"
GOAL_MB = 1024.0


def _table(path: Path, rows: int, categories: int) -> None:
    rng = np.random.default_rng(0)
    income = rng.normal(30, 8, rows).round(1)
    group = rng.choice(["a", "b"], rows, p=[0.4, 0.6])
    frame = pd.DataFrame(
        {
            "income": income,
            "street": [f"s{i}" for i in rng.integers(0, categories, rows)],
            "group": group,
            "label": np.where(income + (group == "b") * 3 + rng.normal(0, 6, rows) > 32, 1, 0),
        }
    )
    frame.to_csv(path, index=False)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=60_000)
    parser.add_argument("--categories", type=int, default=20_000)
    args = parse_args(parser)
    if args.quick:
        args.rows, args.categories = 2000, 200
    with tempfile.TemporaryDirectory() as tmp:
        table = Path(tmp) / "wide.csv"
        _table(table, args.rows, args.categories)
        command = [sys.executable, "-c", RUN, "audit", "--data", str(table), "--label", "label"]
        command += ["--sensitive", "group"]
        start = time.perf_counter()
        done = subprocess.run(command, capture_output=True, text=True, check=False)
        wall = time.perf_counter() - start
    peak_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    capped = "(other)" in done.stderr or "grouped" in done.stderr
    row = {
        "rows": args.rows,
        "categories": args.categories,
        "exit_code": done.returncode,
        "peak_mb": round(peak_mb, 1),
        "wall_s": round(wall, 2),
        "cap_reported": capped,
        "under_goal": peak_mb < GOAL_MB and done.returncode == 0,
    }
    report("wide_categories", [row])
    if done.returncode:
        print(done.stderr[-2000:])


if __name__ == "__main__":
    main()
