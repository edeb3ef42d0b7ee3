"""Shared helpers for benchmark scripts: single-threaded timing, a table and a JSON file.

Every script takes ``--quick`` (a smoke run of a few seconds: tiny pools, few rounds; its
numbers measure nothing) and ``--out DIR``. JSON goes to ``$FAIRACQ_BENCH_OUT`` when set, else
``benchmarks/out/``; ``--quick`` without ``--out`` writes to a new temporary folder, so a smoke
run never overwrites the results of a full one.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

OUT = Path(__file__).resolve().parent / "out"
#: Environment variable naming the folder the JSON goes to (children inherit it).
OUT_ENV = "FAIRACQ_BENCH_OUT"


def parse_args(
    parser: argparse.ArgumentParser, argv: list[str] | None = None
) -> argparse.Namespace:
    """Add ``--quick`` and ``--out`` to ``parser``, parse, and point ``report`` at the folder."""
    parser.add_argument("--quick", action="store_true", help="smoke run of a few seconds")
    parser.add_argument(
        "--out", type=Path, default=None, help="folder for the JSON (default: benchmarks/out/)"
    )
    args = parser.parse_args(argv)
    if args.out is not None:
        os.environ[OUT_ENV] = str(args.out.resolve())
    elif args.quick and OUT_ENV not in os.environ:
        os.environ[OUT_ENV] = tempfile.mkdtemp(prefix="fairacq-bench-")
    return args


def out_dir() -> Path:
    """The folder :func:`report` writes to (``$FAIRACQ_BENCH_OUT`` or ``benchmarks/out/``)."""
    return Path(os.environ.get(OUT_ENV) or OUT)


def timeit(fn: Callable[[], Any], *, repeat: int = 5) -> dict[str, float]:
    """Median and min wall time of ``fn`` over ``repeat`` runs (after one warm-up)."""
    fn()
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return {"median_s": statistics.median(times), "min_s": min(times), "repeat": repeat}


def report(name: str, rows: list[dict[str, Any]]) -> Path:
    """Print ``rows`` as a table and write them to ``<out_dir()>/<name>.json``."""
    cols = list(rows[0])
    widths = [max(len(c), *(len(_fmt(r[c])) for r in rows)) for c in cols]
    print(" | ".join(c.ljust(w) for c, w in zip(cols, widths, strict=True)))
    print("-+-".join("-" * w for w in widths))
    for r in rows:
        print(" | ".join(_fmt(r[c]).ljust(w) for c, w in zip(cols, widths, strict=True)))
    folder = out_dir()
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.json"
    meta = {
        "python": platform.python_version(),
        "machine": platform.machine(),
        "cpus": os.cpu_count(),
        "threads": os.environ.get("OMP_NUM_THREADS"),
    }
    path.write_text(json.dumps({"benchmark": name, "meta": meta, "rows": rows}, indent=2))
    print(f"wrote {path}")
    return path


def _fmt(v: Any) -> str:
    return f"{v:.4g}" if isinstance(v, float) else str(v)


def markdown(path: Path, columns: list[str] | None = None) -> str:
    """A JSON file :func:`report` wrote, as a Markdown table (``python _common.py FILE``)."""
    rows = json.loads(Path(path).read_text())["rows"]
    cols = columns or [c for c in rows[0] if not c.startswith("_")]
    lines = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    lines += ["| " + " | ".join(_fmt(r.get(c, "")) for c in cols) + " |" for r in rows]
    return "\n".join(lines)


if __name__ == "__main__":
    import sys

    for name in sys.argv[1:]:
        print(markdown(Path(name)) + "\n")
