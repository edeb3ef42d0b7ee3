"""Run every benchmark script in turn (``make bench``); results go to benchmarks/out/."""

from __future__ import annotations

import runpy
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def main() -> None:
    sys.path.insert(0, str(HERE))
    scripts = [p for p in sorted(HERE.glob("*.py")) if not p.stem.startswith("_")]
    for script in (p for p in scripts if p.stem != "run_all"):
        print(f"\n== {script.stem}")
        runpy.run_path(str(script), run_name="__main__")


if __name__ == "__main__":
    main()
