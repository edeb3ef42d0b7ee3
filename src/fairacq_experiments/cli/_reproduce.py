"""``fairacq reproduce``: run a paper experiment by name."""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

from fairacq.cli.shared._errors import fail, user_errors
from fairacq.cli.shared._progress import progress
from fairacq.cli.shared._shutdown import stop_on_signals

__all__ = ["parse_overrides", "reproduce_cmd", "run_named"]

console = Console(highlight=False)


def run_named(
    name: str,
    *,
    preset: str,
    out: Path | None,
    executor_kind: str = "local",
    address: str | None = None,
    workers: int | None = None,
    overrides: dict[str, Any] | None = None,
    resume: bool = True,
    command: str | None = None,
) -> Any:
    """Run experiment ``name`` with a progress bar of its tasks and return its result.

    ``command`` is recorded in the summary (default: this process's command line). The bar
    (or, off a terminal, a line every few seconds) goes to stderr: tasks done / tasks handed
    out so far (an experiment may hand out a second phase's tasks after the first). Tasks
    reused from the task cache count as done but not in the pace behind the time left.
    """
    from fairacq.parallel import make_executor
    from fairacq_experiments import run_experiment

    executor = make_executor(executor_kind, address=address, n_workers=workers)  # type: ignore[arg-type]
    if command is None:
        command = "fairacq " + " ".join(shlex.quote(a) for a in sys.argv[1:])
    with progress(f"{name} ({preset})", None, "tasks") as bar:
        return run_experiment(
            name,
            preset=preset,
            out_dir=out,
            executor=executor,
            command=command,
            resume=resume,
            on_progress=lambda done, total, reused: bar.update(done, total=total, resumed=reused),
            **(overrides or {}),
        )


_Full = Annotated[
    bool, typer.Option("--full/--quick", help="The paper's settings, or the quick preset.")
]
_Address = Annotated[str | None, typer.Option(help="dask scheduler address (implies dask).")]
_Resume = Annotated[
    bool,
    typer.Option(
        "--resume/--no-resume",
        help="Reuse tasks finished by an earlier run into the same --out (OUT/task-cache).",
    ),
]
_Sets = Annotated[
    list[str] | None,
    typer.Option(
        "--set",
        help="Change one config field of the preset, FIELD=VALUE (repeatable; VALUE is "
        "JSON, lists become tuples): e.g. --set n_train_iter=3000 --set "
        "one_minus_gammas=[0.2,0.8]. Recorded in the summary's command line.",
    ),
]
_Merge = Annotated[
    list[Path] | None,
    typer.Option(
        "--merge",
        help="Instead of running, summarise the output directories of runs of parts of "
        "the experiment (repeatable; e.g. dadi-fig2 run with --set folds=[0,1] and "
        "--set folds=[2,3]) as one run into --out.",
    ),
]


def reproduce_cmd(
    name: Annotated[str | None, typer.Argument(help="Experiment name (see --list).")] = None,
    list_: Annotated[bool, typer.Option("--list", help="List the experiments.")] = False,
    out: Annotated[Path | None, typer.Option(help="Output directory.")] = None,
    full: _Full = False,
    seeds: Annotated[int | None, typer.Option(help="Number of trials (seeds).")] = None,
    seed: Annotated[int | None, typer.Option(help="Root seed.")] = None,
    executor: Annotated[str, typer.Option(help="serial, local (process pool) or dask.")] = "local",
    address: _Address = None,
    workers: Annotated[int | None, typer.Option(help="Worker processes.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print summary rows as JSON.")] = False,
    resume: _Resume = True,
    set_: _Sets = None,
    merge: _Merge = None,
) -> None:
    """Reproduce a figure or table of one of the papers and write traces, plots and summaries."""
    if list_:
        _print_experiments(as_json)
        return
    if name is None:
        raise fail("name an experiment, or pass --list to see them.")
    target = out if out is not None else Path("results") / name
    _check_out(target, name)
    if merge:
        if set_ or seeds is not None or seed is not None:
            raise fail(
                "--merge takes the parts' own settings; drop --set, --seeds and --seed "
                "(run each part with them instead)."
            )
        _merge_parts(name, merge, target)
        return
    overrides = parse_overrides(set_ or [])
    overrides.update({} if seeds is None else {"n_trials": seeds})
    overrides.update({} if seed is None else {"seed": seed})
    hint = (
        f"; finished tasks are kept in {target}/task-cache: run the same command to go on"
        if resume
        else ""
    )
    with stop_on_signals(hint), user_errors():
        result = run_named(
            name,
            preset="full" if full else "quick",
            out=target,
            executor_kind=executor,
            address=address,
            workers=workers,
            overrides=overrides,
            resume=resume,
            command=_command_line(name, full, seeds, seed, set_ or [], target),
        )
    _print_result(name, target, result, as_json)


def _print_result(name: str, target: Path, result: Any, as_json: bool) -> None:
    """Print what a run wrote (or its summary rows as JSON)."""
    if as_json:
        payload = {"experiment": result.experiment, "preset": result.preset, "rows": result.rows}
        typer.echo(json.dumps(payload, indent=2, default=str))
    else:
        console.print(
            f"{name}: wrote {target}/summary.md, summary.json, "
            f"{len(result.figures)} plot(s) and traces."
        )


def _check_out(target: Path, name: str) -> None:
    """Exit with code 2 before any work when ``target`` cannot be experiment ``name``'s folder.

    A folder holding another command's run or another experiment's is refused; one holding
    an earlier run of ``name`` is fine (its task cache lets the run go on).
    """
    from fairacq._io import check_output_dir
    from fairacq_experiments.cli._experiment_folder import check_experiment_folder

    with user_errors():
        check_output_dir(target, option="--out")
        check_experiment_folder(target, name)


def _print_experiments(as_json: bool) -> None:
    """Print every reproducible experiment (a table, or JSON)."""
    from fairacq_experiments import list_experiments

    specs = list_experiments()
    if as_json:
        rows = [
            {"name": s.name, "family": s.family, "paper": s.paper, "title": s.title} for s in specs
        ]
        typer.echo(json.dumps(rows, indent=2))
        return
    table = Table(title="reproducible experiments", title_justify="left")
    for col in ("name", "family", "paper", "what"):
        table.add_column(col, overflow="fold")
    for s in specs:
        table.add_row(s.name, s.family, s.paper, s.title)
    console.print(table)


def _command_line(
    name: str, full: bool, seeds: int | None, seed: int | None, sets: list[str], target: Path
) -> str:
    """Return the command that reproduces this run (recorded in its summary)."""
    words = ["fairacq", "reproduce", name, "--full" if full else "--quick"]
    words += [] if seeds is None else ["--seeds", str(seeds)]
    words += [] if seed is None else ["--seed", str(seed)]
    for item in sets:
        words += ["--set", item]
    words += ["--out", str(target)]
    return " ".join(shlex.quote(w) for w in words)


def _merge_parts(name: str, parts: list[Path], target: Path) -> None:
    """Summarise the part runs ``parts`` of experiment ``name`` into ``target``."""
    from fairacq_experiments import merge_experiment

    words = ["fairacq", "reproduce", name]
    for part in parts:
        words += ["--merge", str(part)]
    words += ["--out", str(target)]
    with user_errors():
        merge_experiment(
            name, parts, out_dir=target, command=" ".join(shlex.quote(w) for w in words)
        )
    console.print(f"{name}: merged {len(parts)} parts into {target}/summary.md.")


def parse_overrides(items: list[str]) -> dict[str, Any]:
    """Parse ``--set FIELD=VALUE`` items into config overrides.

    VALUE is read as JSON (numbers, booleans, null, lists, strings in quotes); anything that
    is not JSON is taken as a plain string. JSON lists become tuples, as config fields are.

    Raises
    ------
    typer.Exit
        (exit code 2) when an item has no ``=`` or names a field twice.
    """
    from fairacq_experiments._framework.config import lists_to_tuples

    out: dict[str, Any] = {}
    for item in items:
        field, sep, text = item.partition("=")
        field = field.strip()
        if not sep or not field:
            raise fail(f"--set takes FIELD=VALUE (e.g. --set n_train_iter=3000), got {item!r}.")
        if field in out:
            raise fail(f"--set names the field {field!r} twice. Give each field once.")
        try:
            value = json.loads(text)
        except json.JSONDecodeError:
            value = text
        except RecursionError:
            raise fail(f"--set {field}: the value nests too deeply. Give a plain value.") from None
        out[field] = lists_to_tuples(value)
    return out
