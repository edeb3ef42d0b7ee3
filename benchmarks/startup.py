"""Whole-command CPU and wall time of the ``fairacq`` command line, start-up included.

Each command runs in a fresh interpreter, as a user types it (``python -c "from fairacq.cli
import main; main()"`` is what the ``fairacq`` script does); CPU is the child's user + system
time (what ``/usr/bin/time -f %U+%S`` reports), wall the elapsed time, both the median over
``--repeat`` runs after one warm-up run (which fills the OS file cache). Commands:

- ``--help``: start-up alone (goal: under 0.3 CPU s);
- ``relational infer``: the authors' paper-review sample ``bias1`` (294 target atoms) written as
  a PSL data directory, the benchmark's six relational rules, RD <= 0.1 between the
  protected and unprotected papers (goal: under 1.5 s whole command);
- ``acquire``: DataSift-Inf on Adult with quick settings (2% of the pool, batches of half of
  it).

``--quick`` runs ``--help`` and ``acquire`` (on German credit) once each, without a warm-up.
``--baseline DIR`` also times another checkout's ``src`` (e.g. before a change), its runs
interleaved with this checkout's so that both see the same machine load. Prints a table and
writes ``benchmarks/out/startup.json``.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from _common import parse_args, report

HERE = Path(__file__).resolve().parent
RUN = "import sys; from fairacq.cli import main; sys.argv[0] = 'fairacq'; main()"
PAPER_REVIEW_RULES = [
    "5.0: acceptable(P) & reviews(R, P) -> positiveReviews(R, P) ^2",
    "5.0: !acceptable(P) & reviews(R, P) -> !positiveReviews(R, P) ^2",
    "5.0: student(A) & submits(A, P) & reviews(R, P) -> !positiveReviews(R, P) ^2",
    "5.0: !student(A) & submits(A, P) & reviews(R, P) -> positiveReviews(R, P) ^2",
    "5.0: positiveReviews(R1, P) & positiveReviews(R2, P) -> positiveSummary(P) ^2",
    "5.0: reviews(R, P) & !positiveReviews(R, P) -> !positiveSummary(P) ^2",
]


def write_paper_review(root: Path) -> tuple[Path, Path]:
    """Write the paper-review sample ``bias1`` as a PSL data directory and the rules file."""
    from fairacq.relational import load_paper_review

    data = load_paper_review(1)
    folder = root / "data"
    folder.mkdir(parents=True, exist_ok=True)

    def write(name: str, frame: Any) -> None:
        frame.to_csv(folder / f"{name}.txt", sep="\t", header=False, index=False)

    for name, frame in data.observations.items():
        write(f"{name}_obs", frame)
    for name, frame in data.targets.items():
        write(f"{name}_targets", frame)
    for name, frame in data.truth.items():
        write(f"{name}_truth", frame)
    write("protectedPaper_obs", data.protected)
    rules = root / "model.psl"
    rules.write_text("\n".join(PAPER_REVIEW_RULES) + "\n", encoding="utf-8")
    return rules, folder


def run(args: list[str], env: dict[str, str]) -> tuple[float, float]:
    """CPU (user + system) and wall seconds of one fresh ``fairacq`` process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(
        [sys.executable, "-c", RUN, *args],
        check=True,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, wall


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5, help="timed runs per command")
    parser.add_argument("--baseline", type=Path, default=None, help="another checkout's src")
    args = parse_args(parser)
    if args.quick:
        args.repeat = 1
    env = {**os.environ, "OMP_NUM_THREADS": "1", "MPLBACKEND": "Agg"}
    sources = {"this checkout": env}
    if args.baseline is not None:
        sources[f"baseline {args.baseline}"] = {**env, "PYTHONPATH": str(args.baseline.resolve())}
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        # quick: no relational command, so no paper-review data (it lives under FAIRACQ_DATA)
        rules, data = (root, root) if args.quick else write_paper_review(root / "paper-review")
        dataset = "german" if args.quick else "adult"
        commands = {
            "--help": ["--help"],
            "relational infer (paper review)": [
                "relational", "infer", "--rules", str(rules), "--data", str(data),
                "--fair", "rd<=0.1 protected=protectedPaper target=positiveSummary",
                "--out", str(root / "infer"),
            ],
            "acquire (Adult, quick)": [
                "acquire", "--dataset", dataset, "--method", "datasift-inf",
                "--budget", "2%", "--batch", "50%", "--out", str(root / "acquire"),
            ],
        }  # fmt: skip
        if args.quick:
            del commands["relational infer (paper review)"]
        rows = []
        for name, cmd in commands.items():
            times: dict[str, list[tuple[float, float]]] = {src: [] for src in sources}
            for src_env in sources.values() if not args.quick else ():
                run(cmd, src_env)  # warm-up
            for _ in range(args.repeat):
                for src, src_env in sources.items():
                    times[src].append(run(cmd, src_env))
            for src, pairs in times.items():
                cpu = [t[0] for t in pairs]
                wall = [t[1] for t in pairs]
                rows.append(
                    {
                        "command": name,
                        "src": src,
                        "cpu_s": statistics.median(cpu),
                        "cpu_min_s": min(cpu),
                        "wall_s": statistics.median(wall),
                        "wall_min_s": min(wall),
                        "repeat": args.repeat,
                        "load_avg_1min": round(os.getloadavg()[0], 2),
                    }
                )
    report("startup", rows)


if __name__ == "__main__":
    main()
