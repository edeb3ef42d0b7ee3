"""``fairacq datasets list|describe|fetch``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

from fairacq.cli.shared._errors import err_console, fail, user_errors

__all__ = ["datasets_app"]

datasets_app = typer.Typer(help="List, describe and fetch datasets.", no_args_is_help=True)
console = Console(highlight=False)

JsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON (only that on stdout).")]
DataDirOpt = Annotated[
    Path | None,
    typer.Option(help="Data directory to look in (default: $FAIRACQ_DATA or the cache)."),
]
NameArg = Annotated[str, typer.Argument(help="Dataset name (fairacq datasets list).")]


def _needs_cell(record: dict[str, Any]) -> str:
    """Say what a dataset still needs, short (the authors' files: the whole instruction)."""
    if record["needs"] is None:
        return "nothing (bundled)" if record["bundled"] else "nothing (in the data directory)"
    if record["kind"] != "dataset":
        return str(record["needs"])
    if record["fetchable"]:
        return f"fairacq datasets fetch {record['name']}"
    return f"a file by hand: `fairacq datasets fetch {record['name']}` says which and where"


def _offline_cell(record: dict[str, Any]) -> str:
    return "[green]yes[/]" if record["available_offline"] else "[red]no[/]"


@datasets_app.command("list")
def list_cmd(as_json: JsonOpt = False, data_dir: DataDirOpt = None) -> None:
    """Every dataset: whether it is available offline, and what it needs if not.

    Then the paper authors' files some experiments read (psl-compas: the authors' COMPAS
    folds; psl-paper-review: their paper-review samples), with where to get them.
    """
    from fairacq.data.loaders import describe_datasets

    with user_errors():
        records = describe_datasets(data_dir)
    if as_json:
        typer.echo(json.dumps(records, indent=2))
        return
    table = Table(title="fairacq datasets", title_justify="left")
    for col in ("name", "sensitive", "label", "offline", "needs"):
        table.add_column(col, overflow="fold")
    authors = Table(
        title="the paper authors' files (some experiments read them)", title_justify="left"
    )
    for col in ("name", "used by", "offline", "needs"):
        authors.add_column(col, overflow="fold")
    for r in records:
        if r["kind"] == "dataset":
            sensitive = ", ".join(r["sensitive_attributes"])
            table.add_row(r["name"], sensitive, r["label"], _offline_cell(r), _needs_cell(r))
        else:
            authors.add_row(r["name"], "; ".join(r["used_by"]), _offline_cell(r), _needs_cell(r))
    console.print(table)
    console.print(authors)


@datasets_app.command("describe")
def describe_cmd(name: NameArg, as_json: JsonOpt = False, data_dir: DataDirOpt = None) -> None:
    """Describe one dataset: source, licence, label, papers, files, offline, needs."""
    from fairacq.data.loaders import describe_dataset

    with user_errors():
        data = describe_dataset(name, data_dir)
    if as_json:
        typer.echo(json.dumps(data, indent=2))
        return
    for key, value in data.items():
        shown = ", ".join(map(str, value)) if isinstance(value, list) else value
        console.print(f"[bold]{key}[/]: {shown}")


@datasets_app.command("info", hidden=True)
def info_cmd(name: NameArg, as_json: JsonOpt = False, data_dir: DataDirOpt = None) -> None:
    """Describe one dataset (the old name of ``describe``)."""
    describe_cmd(name, as_json=as_json, data_dir=data_dir)


@datasets_app.command("fetch")
def fetch_cmd(
    name: NameArg,
    data_dir: Annotated[
        Path | None, typer.Option(help="Target directory (default: $FAIRACQ_DATA or the cache).")
    ] = None,
    force: Annotated[bool, typer.Option(help="Download again even if present.")] = False,
    state: Annotated[
        list[str] | None,
        typer.Option(help="ACS only: a state's postal code (repeat for several; default WY)."),
    ] = None,
    as_json: Annotated[
        bool,
        typer.Option(
            "--json", help="Print what was fetched and where, or why not, as JSON (only that)."
        ),
    ] = False,
) -> None:
    """Download a dataset from its canonical URL and verify its sha256.

    A dataset fairacq may not download (Give Me Some Credit, Taiwan credit, the authors'
    files) exits with code 2 and one line: what to download, from where, where to save it.
    """
    from fairacq.data.loaders import fetch_dataset, plan_fetch
    from fairacq.exceptions import FairacqError

    if state and not name.startswith("acs-"):
        raise fail(f"--state applies to the ACS datasets only (acs-income, ...), not {name!r}.")
    extra = {"states": tuple(state)} if state else {}
    with user_errors():
        plan = plan_fetch(name, data_dir=data_dir, force=force, **extra)
    record = _fetch_record(plan, data_dir)
    try:
        with err_console.status(f"Fetching {name} ..."):
            fetch_dataset(name, data_dir=data_dir, force=force, **extra)
    except FairacqError as exc:
        message = " ".join(str(exc).split())
        if as_json:
            typer.echo(json.dumps({**record, "ok": False, "error": message}, indent=2))
        raise fail(message) from None
    if as_json:
        typer.echo(json.dumps({**record, "ok": True}, indent=2))
    else:
        console.print(_fetch_line(record), markup=False, soft_wrap=True)


def _fetch_record(plan: Any, data_dir: Path | None) -> dict[str, Any]:
    """Return the JSON of ``fetch``: the dataset, its folder, the files downloaded or kept.

    File names are relative to ``data_dir`` (for a bundled dataset, nothing is fetched).
    """
    from fairacq.data.loaders import data_dir as default_data_dir

    root = Path(data_dir).expanduser() if data_dir is not None else default_data_dir()
    record: dict[str, Any] = {
        "dataset": plan.name,
        "data_dir": None if plan.bundled else str(root),
        "folder": str(plan.folder),
        "bundled": plan.bundled,
        "downloaded": [s.target for s in plan.downloads],
        "already_present": list(plan.present),
        "manual": None,
    }
    if plan.manual is not None:
        m = plan.manual
        record["manual"] = {
            "download": m.get.strip(", "),
            "from": m.url,
            "then": m.then or None,
            "save_as": str(root / m.target),
        }
    return record


def _fetch_line(record: dict[str, Any]) -> str:
    name, folder = record["dataset"], record["folder"]
    if record["bundled"]:
        return f"{name}: bundled with fairacq, nothing to fetch ({folder})"
    if record["downloaded"]:
        return f"{name}: downloaded {len(record['downloaded'])} file(s) into {folder}"
    return f"{name}: already present in {folder}"
