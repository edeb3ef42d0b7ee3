"""``fairacq sample``: allocate a sampling budget across groups (paper 001's samplers)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from fairacq.cli._errors import fail, user_errors

__all__ = ["sample_cmd"]

console = Console(highlight=False)


def sample_cmd(
    dataset: Annotated[str, typer.Option(help="Dataset name.")] = "adult",
    groups: Annotated[
        str,
        typer.Option(
            help="Sensitive attributes defining the groups, comma-separated (intersections)."
        ),
    ] = "race_binary,sex",
    method: Annotated[
        str, typer.Option(help="aopt, aopt-plus, epsilon-greedy, greedy, uniform, uncurated.")
    ] = "aopt",
    budget: Annotated[int, typer.Option(help="Samples to draw.")] = 2000,
    c0: Annotated[float, typer.Option(help="Aopt's exploration constant (eq. 6).")] = 0.1,
    epsilon: Annotated[float, typer.Option(help="epsilon-greedy's epsilon.")] = 0.1,
    trials: Annotated[int, typer.Option(help="Independent trials.")] = 10,
    seed: Annotated[int, typer.Option(help="Root seed.")] = 0,
    test_size: Annotated[float, typer.Option(help="Held-out test fraction.")] = 0.3,
    workers: Annotated[int | None, typer.Option(help="Worker processes.")] = None,
    out: Annotated[Path, typer.Option(help="Output directory.")] = Path("sampling"),
    as_json: Annotated[bool, typer.Option("--json", help="Print the summary as JSON.")] = False,
) -> None:
    """Draw labelled samples group by group to maximise the worst group's accuracy."""
    from fairacq._io import check_output_dir
    from fairacq.data import load_dataset
    from fairacq.experiments import make_executor
    from fairacq.reporting import write_run
    from fairacq.sampling import run_sampler_trials

    attrs = [g.strip() for g in groups.split(",") if g.strip()]
    if not attrs:
        raise fail("--groups needs at least one sensitive attribute, e.g. --groups race,sex.")
    with user_errors():
        check_output_dir(out, option="--out")
        data = load_dataset(dataset).with_sensitive(*attrs)
        with console.status(f"Sampling with {method}, {trials} trial(s) ..."):
            traces = run_sampler_trials(
                data,
                method,
                n_trials=trials,
                random_state=seed,
                test_size=test_size,
                executor=make_executor("local", n_workers=workers),
                budget=budget,
                c0=c0,
                epsilon=epsilon,
            )
        report = write_run(
            traces,
            out,
            method=method,
            dataset=dataset,
            metric="test_worst_acc",
            shares="pi_",
            experiment=f"sample-{method}",
            figure="sampling.png",
            xlabel="samples drawn",
            ylabel="worst-group accuracy (test)",
            shares_ylabel="share of the samples, pi_t(z)",
            notes=[f"Groups: {' x '.join(attrs)}; {trials} trial(s), budget {budget}."],
        )
    if as_json:
        typer.echo(json.dumps({"rows": report.rows}, indent=2))
    else:
        for r in report.rows:
            console.print(f"{r['metric']}: {r['value']:.4f}")
        console.print(f"Wrote {out}/summary.md, sampling.png and traces.")
