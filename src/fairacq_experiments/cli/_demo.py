"""``fairacq demo``: audit Adult, then compare DataSift-Inf with Random acquisition."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console

from fairacq.cli.audit._audit import print_audit
from fairacq.cli.shared._errors import err_console, user_errors
from fairacq.cli.shared._out_folder import OverwriteOpt, check_out_folder
from fairacq.cli.shared._shutdown import stop_on_signals
from fairacq_experiments.cli._reproduce import run_named

__all__ = ["demo_cmd"]

console = Console(highlight=False)
_EXPERIMENT = "demo-datasift"


def demo_cmd(
    out: Annotated[Path, typer.Option(help="Output directory.")] = Path("fairacq-demo"),
    seed: Annotated[int, typer.Option(help="Root seed.")] = 0,
    overwrite: OverwriteOpt = False,
    as_json: Annotated[
        bool,
        typer.Option(
            "--json", help="Print the audit and the comparison as JSON (only that on stdout)."
        ),
    ] = False,
) -> None:
    """Audit logistic regression on Adult by sex, then run DataSift-Inf against Random.

    An earlier demo in --out is replaced (its finished tasks reused, so a second run is
    quick); any other run there needs --overwrite. The new demo is built beside --out and
    swapped in when it finishes, so a stopped demo leaves the earlier folder as it was.
    """
    from fairacq._run_folder import run_folder
    from fairacq.data import load_dataset
    from fairacq.models import audit
    from fairacq_experiments.cli._experiment_folder import experiment_in, reuse_task_cache

    with stop_on_signals(), user_errors():
        own = experiment_in(out) == _EXPERIMENT  # the demo replaces its own earlier demo
        check_out_folder(out, {}, overwrite=overwrite or own)
        with err_console.status("Auditing logistic regression on Adult ..."):
            report = audit(load_dataset("adult", sensitive="sex"), "lr", random_state=seed)
        if not as_json:
            print_audit(report)
        with run_folder(out) as building:
            if own:
                reuse_task_cache(out, building)
            result = run_named(_EXPERIMENT, preset="quick", out=building, overrides={"seed": seed})
    if as_json:
        typer.echo(json.dumps(_payload(report, result, out), indent=2, default=str))
        return
    for row in result.rows:
        console.print(
            f"{row['method']:>12} {row['stage']:>7} {row['metric']}: {row['value']:.4f} "
            f"(± {row['std']:.4f} over {result.config['n_trials']} trials)"
        )
    console.print(f"Plot: {out / 'datasift-vs-random.png'}  Summary: {out / 'summary.md'}")


def _payload(report: Any, result: Any, out: Path) -> dict[str, Any]:
    """Return the demo's summary: the audit, the comparison's rows and the files written."""
    return {
        "audit": report.to_dict(),
        "experiment": result.experiment,
        "preset": result.preset,
        "n_trials": result.config.get("n_trials"),
        "rows": result.rows,
        "out": str(out),
        "figure": str(out / "datasift-vs-random.png"),
        "summary": str(out / "summary.md"),
    }
