"""Run every benchmark script in turn (``make bench``); results go to benchmarks/out/.

Each script runs in its own process; a failing one is reported and the others still run,
and the exit code is 1 if any failed. ``--quick`` runs each in its quick mode (a smoke test of
a few seconds each, ``make bench-quick``) and writes their JSON to a temporary folder (or
``--out``), never over the results of full runs.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def scripts() -> list[Path]:
    """Every benchmark script: the ``*.py`` files here but the helpers and this one."""
    return [
        p
        for p in sorted(HERE.glob("*.py"))
        if not p.stem.startswith("_") and p != HERE / "run_all.py"
    ]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="each script's quick mode")
    parser.add_argument("--out", type=Path, default=None, help="folder for the JSON")
    args = parser.parse_args()
    env = dict(os.environ)
    env.setdefault("OMP_NUM_THREADS", "1")
    if args.out is not None or args.quick:
        out = args.out or Path(tempfile.mkdtemp(prefix="fairacq-bench-"))
        env["FAIRACQ_BENCH_OUT"] = str(out.resolve())
    failed = []
    for script in scripts():
        print(f"\n== {script.stem}", flush=True)
        start = time.perf_counter()
        cmd = [sys.executable, str(script), *(["--quick"] if args.quick else [])]
        if subprocess.run(cmd, cwd=HERE, env=env, check=False).returncode:
            failed.append(script.stem)
        print(f"   ({time.perf_counter() - start:.1f} s)", flush=True)
    if failed:
        print(f"\nfailed: {', '.join(failed)}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
