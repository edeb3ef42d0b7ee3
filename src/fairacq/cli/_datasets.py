"""``fairacq datasets list|info|fetch``."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

from fairacq.cli._errors import fail, user_errors

__all__ = ["datasets_app"]

datasets_app = typer.Typer(help="List, describe and fetch datasets.", no_args_is_help=True)
console = Console(highlight=False)


def _info_dict(info: Any, offline: bool) -> dict[str, Any]:
    out = dataclasses.asdict(info)
    out["available_offline"] = offline
    return {k: list(v) if isinstance(v, tuple) else v for k, v in out.items()}


@datasets_app.command("list")
def list_cmd(
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """Every dataset, where it comes from and whether it is available offline."""
    from fairacq.data import is_available_offline, list_datasets

    with user_errors():
        infos = [(i, is_available_offline(i.name)) for i in list_datasets()]
    if as_json:
        typer.echo(json.dumps([_info_dict(i, off) for i, off in infos], indent=2))
        return
    table = Table(title="fairacq datasets", title_justify="left")
    for col in ("name", "sensitive", "label", "source", "licence", "where", "offline"):
        table.add_column(col, overflow="fold")
    for info, offline in infos:
        where = "bundled" if info.bundled else "data dir / fetch"
        table.add_row(
            info.name,
            ", ".join(info.sensitive_attributes),
            info.label,
            info.source_url,
            info.licence,
            where,
            "[green]yes[/]" if offline else "[red]no[/]",
        )
    console.print(table)


@datasets_app.command("info")
def info_cmd(
    name: Annotated[str, typer.Argument(help="Dataset name.")],
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """Describe one dataset."""
    from fairacq.data import dataset_info, is_available_offline

    with user_errors():
        info = dataset_info(name)
        data = _info_dict(info, is_available_offline(name))
    if as_json:
        typer.echo(json.dumps(data, indent=2))
        return
    for key, value in data.items():
        shown = ", ".join(map(str, value)) if isinstance(value, list) else value
        console.print(f"[bold]{key}[/]: {shown}")


@datasets_app.command("fetch")
def fetch_cmd(
    name: Annotated[str, typer.Argument(help="Dataset name.")],
    data_dir: Annotated[
        Path | None, typer.Option(help="Target directory (default: $FAIRACQ_DATA or the cache).")
    ] = None,
    force: Annotated[bool, typer.Option(help="Download again even if present.")] = False,
    state: Annotated[
        list[str] | None,
        typer.Option(help="ACS only: a state's postal code (repeat for several; default WY)."),
    ] = None,
) -> None:
    """Download a dataset from its canonical URL and verify its sha256."""
    from fairacq.data import fetch_dataset

    if state and not name.startswith("acs-"):
        raise fail(f"--state applies to the ACS datasets only (acs-income, ...), not {name!r}.")
    with user_errors(), console.status(f"Fetching {name} ..."):
        extra = {"states": tuple(state)} if state else {}
        path = fetch_dataset(name, data_dir=data_dir, force=force, **extra)
    console.print(f"{name}: ready in {path}")
