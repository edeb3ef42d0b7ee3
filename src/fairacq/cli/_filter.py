"""``fairacq filter fit|apply``: learn a non-disclosive proxy, then admit candidates with it."""

from __future__ import annotations

import json
import warnings
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console

from fairacq.cli._errors import err_console, fail, user_errors

__all__ = ["filter_app"]

filter_app = typer.Typer(
    help="Balanced filtering without seeing candidates' groups (paper 003).", no_args_is_help=True
)
console = Console(highlight=False)

#: Proxy names (kept here so that ``--help`` needs no import of the filtering package).
_PROXIES = ("naive-regression", "qp-regression", "naive-tree", "qp-tree", "alpha-beta")


def _split_attrs(sensitive: str) -> list[str]:
    """Split ``--sensitive race,sex`` into attribute names (several: intersecting classes)."""
    attrs = [a.strip() for a in sensitive.split(",")]
    if not attrs or any(not a for a in attrs):
        raise fail(
            f"--sensitive must name one attribute or several separated by commas (e.g. "
            f"race,sex). Got {sensitive!r}."
        )
    if len(set(attrs)) != len(attrs):
        raise fail(f"--sensitive repeats an attribute in {sensitive!r}. Name each once.")
    return attrs


@filter_app.command("fit")
def fit_cmd(
    dataset: Annotated[str, typer.Option(help="Labelled sample: a dataset name.")] = "adult",
    sensitive: Annotated[
        str,
        typer.Option(
            help="Sensitive attribute; several separated by commas (race,sex) are balanced "
            "as intersecting group classes (paper 003, App. A.2)."
        ),
    ] = "race",
    proxy: Annotated[str, typer.Option(help=", ".join(_PROXIES) + ".")] = "alpha-beta",
    alpha: Annotated[
        float | None,
        typer.Option(help="Disclosivity allowed, in [0, 1] (alpha-beta only; default 0.2)."),
    ] = None,
    gamma: Annotated[
        float | None,
        typer.Option(help="Progress parameter of Algorithm 4 (alpha-beta only; default 0.1)."),
    ] = None,
    out: Annotated[Path, typer.Option(help="Where to write the proxy (JSON).")] = Path(
        "proxy.json"
    ),
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the fit summary as JSON.")
    ] = False,
) -> None:
    """Learn a proxy on a labelled sample and save it as plain JSON (no group labels inside)."""
    from fairacq._io import check_output_file
    from fairacq.data import load_dataset
    from fairacq.filtering import UnreachableTargetWarning, fit_proxy, save_proxy

    alpha, gamma = _alpha_beta_options(proxy, alpha, gamma)
    attrs = _split_attrs(sensitive)
    with user_errors():
        check_output_file(out, option="--out")
        data = load_dataset(dataset, sensitive=attrs[0])
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", UnreachableTargetWarning)
            model = fit_proxy(data, proxy, sensitive=attrs, alpha=alpha, gamma=gamma)
        for w in caught:
            err_console.print(f"note: {w.message}", markup=False)
        save_proxy(model, out)
    groups = list(data.group_names) if len(attrs) == 1 else [str(g) for g in model.groups_]
    summary = {
        "proxy": proxy,
        "alpha": float(model.alpha_),
        "beta": float(model.beta_),
        "groups": groups,
        "out": str(out),
    }
    if len(attrs) > 1:
        summary["sensitive"] = attrs
    if as_json:
        typer.echo(json.dumps(summary, indent=2))
    else:
        console.print(
            f"{proxy}: in-sample alpha {summary['alpha']:.3f}, beta "
            f"{summary['beta']:.3f}; saved {out}"
        )
        if len(attrs) > 1:
            console.print(f"groups ({' x '.join(attrs)}): {', '.join(groups)}", markup=False)


@filter_app.command("apply")
def apply_cmd(
    proxy: Annotated[Path, typer.Option(help="A proxy written by `fairacq filter fit`.")],
    input: Annotated[
        Path, typer.Option(help="Candidates (.parquet or .csv) with the proxy's feature columns.")
    ],
    out: Annotated[Path, typer.Option(help="Admitted candidates (.parquet or .csv).")],
    seed: Annotated[int, typer.Option(help="Seed of the admission draws.")] = 0,
    evaluate: Annotated[
        str | None,
        typer.Option(
            help="Columns of the input holding the candidates' true groups, comma-separated "
            "(one per group class of an intersecting proxy), for evaluation only: never "
            "used to admit. Adds every group's share before/after and beta to the summary."
        ),
    ] = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the filter's trace row as JSON.")
    ] = False,
) -> None:
    """Admit candidates at random with the proxy's per-value probabilities (Algorithm 2)."""
    from fairacq._io import check_output_file
    from fairacq.data import TABLE_SUFFIXES, read_table, write_table
    from fairacq.filtering import BalancedFilter, evaluation_groups, load_proxy

    with user_errors():
        check_output_file(out, option="--out", suffixes=tuple(TABLE_SUFFIXES))
        fitted = load_proxy(proxy)
        frame = read_table(input)
        truth = (
            None
            if evaluate is None
            else evaluation_groups(frame, evaluate.split(","), fitted.classes)
        )
        result = BalancedFilter(proxy=fitted, random_state=seed).filter(frame, s=truth)
        write_table(result.admitted, out)
    row = {str(k): _plain(v) for k, v in result.trace.to_frame().to_dict("records")[-1].items()}
    if as_json:
        typer.echo(json.dumps({**row, "out": str(out)}, indent=2))
        return
    console.print(f"admitted {int(result.mask.sum())} of {len(frame)} candidates -> {out}")
    if truth is not None:
        for g in fitted.groups:
            console.print(
                f"  {g}: share {row[f'share_seen_{g}']:.3f} -> {row[f'share_admitted_{g}']:.3f}",
                markup=False,
            )
        if "beta_admitted" in row:
            console.print(f"  beta of the admitted set: {row['beta_admitted']:.3f}")


def _plain(value: Any) -> Any:
    """Return a JSON-ready Python scalar."""
    return value.item() if hasattr(value, "item") else value


def _alpha_beta_options(
    proxy: str, alpha: float | None, gamma: float | None
) -> tuple[float, float]:
    """Return (alpha, gamma); refuse them for a proxy that does not take them."""
    if proxy != "alpha-beta" and (alpha is not None or gamma is not None):
        flag = "--alpha" if alpha is not None else "--gamma"
        raise fail(
            f"{flag} applies to the (alpha, beta)-proxy only; the {proxy} proxy does not "
            "bound disclosivity (its alpha is reported after fitting). Drop "
            f"{flag} or use --proxy alpha-beta."
        )
    alpha = 0.2 if alpha is None else alpha
    if not 0.0 <= alpha <= 1.0:
        raise fail(f"--alpha must be in [0, 1], got {alpha}.")
    return alpha, 0.1 if gamma is None else gamma
