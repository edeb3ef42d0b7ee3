"""``fairacq sample``: allocate a sampling budget across groups (paper 001's samplers)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console

from fairacq.cli._errors import fail, user_errors

__all__ = ["sample_cmd"]

console = Console(highlight=False)


def _trial(
    dataset: Any,
    method: str,
    params: dict[str, Any],
    test_size: float,
    seed: Any,
) -> Any:
    """One trial: a fresh stratified pool/test split, then the sampler over the pool."""
    import numpy as np
    from sklearn.model_selection import train_test_split

    from fairacq._random import child_seeds
    from fairacq.data import standardize
    from fairacq.sampling import DatasetOracle, make_sampler

    split_seed, run_seed = child_seeds(seed, 2)
    idx_pool, idx_test = train_test_split(
        np.arange(len(dataset)),
        test_size=test_size,
        stratify=dataset.s * 2 + dataset.y,
        random_state=int(split_seed.generate_state(1)[0]),
    )
    pool = dataset.subset(idx_pool)
    test = standardize(dataset.subset(idx_test), reference=pool)
    pool = standardize(pool)
    sampler = make_sampler(method, random_state=run_seed, **params)
    return sampler.run(DatasetOracle(pool), test=test)


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
    import functools

    import numpy as np

    from fairacq._random import spawn_seeds
    from fairacq.data import load_dataset
    from fairacq.experiments import make_executor
    from fairacq.reporting import new_figure, plot_traces, save_figure, write_summary

    attrs = [g.strip() for g in groups.split(",") if g.strip()]
    if not attrs:
        raise fail("--groups needs at least one sensitive attribute, e.g. --groups race,sex.")
    with user_errors():
        data = load_dataset(dataset).with_sensitive(*attrs)
        params = {"budget": budget, "c0": c0, "epsilon": epsilon}
        run = functools.partial(_trial, data, method, params, test_size)
        with console.status(f"Sampling with {method}, {trials} trial(s) ..."):
            traces = make_executor("local", n_workers=workers).map(run, spawn_seeds(seed, trials))
        out.mkdir(parents=True, exist_ok=True)
        for i, trace in enumerate(traces):
            trace.save(out / "traces" / f"{method}-trial{i}")
        fig = new_figure(11.0, 4.0)
        left, right = fig.subplots(1, 2)
        plot_traces(
            {method: traces},
            "test_worst_acc",
            ax=left,
            xlabel="samples drawn",
            ylabel="worst-group accuracy (test)",
        )
        pis = [c for c in traces[0].to_frame().columns if c.startswith("pi_")]
        for i, col in enumerate(pis):
            plot_traces(
                {col.removeprefix("pi_"): traces},
                col,
                ax=right,
                xlabel="samples drawn",
                ylabel="share of the samples, pi_t(z)",
                first_colour=i,
            )
        save_figure(fig, out / "sampling.png")
        final = np.array([t.final("test_worst_acc") for t in traces], dtype=float)
        rows = [
            {
                "dataset": dataset,
                "method": method,
                "metric": "test_worst_acc",
                "value": float(final.mean()),
                "std": float(final.std()),
                "paper_value": None,
            }
        ]
        rows += [
            {
                "dataset": dataset,
                "method": method,
                "metric": col,
                "value": float(np.mean([t.final(col) for t in traces])),
                "paper_value": None,
            }
            for col in pis
        ]
        write_summary(
            out,
            experiment=f"sample-{method}",
            preset="custom",
            rows=rows,
            figures=["sampling.png"],
            notes=[f"Groups: {' x '.join(attrs)}; {trials} trial(s), budget {budget}."],
        )
    if as_json:
        typer.echo(json.dumps({"rows": rows}, indent=2))
    else:
        for r in rows:
            console.print(f"{r['metric']}: {r['value']:.4f}")
        console.print(f"Wrote {out}/summary.md, sampling.png and traces.")
