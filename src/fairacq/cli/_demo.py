"""``fairacq demo``: audit Adult, then compare DataSift-Inf with Random acquisition."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from fairacq.cli._audit import print_audit
from fairacq.cli._errors import user_errors
from fairacq.cli._reproduce import run_named

__all__ = ["demo_cmd"]

console = Console(highlight=False)


def demo_cmd(
    out: Annotated[Path, typer.Option(help="Output directory.")] = Path("fairacq-demo"),
    seed: Annotated[int, typer.Option(help="Root seed.")] = 0,
) -> None:
    """Audit logistic regression on Adult by sex, then run DataSift-Inf against Random."""
    from fairacq._io import check_output_dir
    from fairacq.data import load_dataset
    from fairacq.models import audit

    with user_errors():
        check_output_dir(out, option="--out")
        with console.status("Auditing logistic regression on Adult ..."):
            report = audit(load_dataset("adult", sensitive="sex"), "lr", random_state=seed)
        print_audit(report)
        result = run_named("demo-datasift", preset="quick", out=out, overrides={"seed": seed})
    for row in result.rows:
        console.print(
            f"{row['method']:>12} {row['stage']:>7} {row['metric']}: {row['value']:.4f} "
            f"(± {row['std']:.4f} over {result.config['n_trials']} trials)"
        )
    console.print(f"Plot: {out / 'datasift-vs-random.png'}  Summary: {out / 'summary.md'}")
