"""Result summaries: ``summary.md`` for people, ``summary.json`` for scripts."""

from __future__ import annotations

import math
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from fairacq._io import atomic_write, write_json
from fairacq.reporting._verdict import VerdictLike, format_verdict

__all__ = ["format_markdown_table", "summary_frame", "write_summary"]

_CORE = ("dataset", "method", "metric", "value", "paper_value")


def summary_frame(rows: Sequence[Mapping[str, Any]]) -> pd.DataFrame:
    """Tidy rows as a DataFrame with a ``gap`` column (ours minus the paper's)."""
    frame = pd.DataFrame(list(rows))
    for col in _CORE:
        if col not in frame.columns:
            frame[col] = None
    value = pd.to_numeric(frame["value"], errors="coerce")
    paper = pd.to_numeric(frame["paper_value"], errors="coerce")
    frame["gap"] = value - paper
    return frame


def _fmt(v: Any) -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "—"
    if isinstance(v, float):
        return f"{v:.4g}"
    return str(v)


def format_markdown_table(frame: pd.DataFrame, columns: Sequence[str] | None = None) -> str:
    """Render ``frame`` as a GitHub-flavoured Markdown table."""
    cols = list(columns) if columns is not None else [str(c) for c in frame.columns]
    lines = ["| " + " | ".join(cols) + " |", "|" + "|".join("---" for _ in cols) + "|"]
    for _, row in frame.iterrows():
        lines.append("| " + " | ".join(_fmt(row.get(c)) for c in cols) + " |")
    return "\n".join(lines)


def write_summary(
    out_dir: str | os.PathLike[str],
    *,
    experiment: str,
    preset: str,
    rows: Sequence[Mapping[str, Any]],
    title: str = "",
    notes: Sequence[str] = (),
    figures: Sequence[str] = (),
    command: str = "",
    meta: Mapping[str, Any] | None = None,
    tables: Mapping[str, str] | None = None,
    verdicts: Sequence[VerdictLike] = (),
) -> tuple[Path, Path]:
    """Write ``summary.md`` and ``summary.json`` into ``out_dir`` (atomically).

    Parameters
    ----------
    rows : sequence of mapping
        Tidy rows with at least ``dataset``, ``method``, ``metric``, ``value`` and
        ``paper_value`` (None when the paper gives none), plus any keys such as ``seed``.
    notes : sequence of str
        Sentences placed under the table, e.g. where the paper's number is not reached.
    figures : sequence of str
        File names of plots in ``out_dir`` to embed.
    tables : mapping of str to str, optional
        Heading -> a Markdown table (e.g. from :func:`format_markdown_table`), placed after
        the findings: compact views such as a paper's table with our numbers beside it.
    verdicts : sequence of verdicts
        The run's acceptance checks (any object with the fields of :class:`VerdictLike`,
        such as the experiments harness's ``Verdict``): one line each in
        ``summary.md`` (:func:`format_verdict`), their fields under ``verdicts`` in
        ``summary.json``.

    Returns
    -------
    (Path, Path)
        The Markdown and JSON paths.
    """
    out = Path(out_dir)
    frame = summary_frame(rows)
    extra = [c for c in frame.columns if c not in (*_CORE, "gap")]
    table_cols = ["dataset", "method", "metric", *extra, "value", "paper_value", "gap"]
    parts = [f"# {title or experiment}", "", f"Experiment `{experiment}`, preset `{preset}`."]
    if command:
        parts += ["", f"Reproduce with: `{command}`"]
    # What a reader wants first: the findings (where the paper is and is not reproduced) and
    # the plots; the full table of numbers follows.
    if notes:
        parts += ["", "## Findings", ""] + [f"- {n}" for n in notes]
    if verdicts:
        parts += ["", "## Acceptance checks", ""] + [f"- {format_verdict(v)}" for v in verdicts]
    for heading, table in (tables or {}).items():
        parts += ["", f"## {heading}", "", table]
    if figures:
        parts += ["", "## Figures", ""] + [f"![{f}]({f})" for f in figures]
    parts += [
        "",
        "## All numbers",
        "",
        "Our numbers beside the paper's (gap = ours - paper; — where the paper reports none).",
        "",
        format_markdown_table(frame, table_cols),
    ]
    md_path, json_path = out / "summary.md", out / "summary.json"
    with atomic_write(md_path) as f:
        f.write("\n".join(parts) + "\n")
    clean_rows = [
        {k: (None if isinstance(v, float) and math.isnan(v) else v) for k, v in r.items()}
        for r in rows
    ]
    write_json(
        json_path,
        {
            "experiment": experiment,
            "preset": preset,
            "rows": clean_rows,
            **({"command": command} if command else {}),
            **({"verdicts": [_verdict_fields(v) for v in verdicts]} if verdicts else {}),
            **({"meta": dict(meta)} if meta else {}),
        },
    )
    return md_path, json_path


def _verdict_fields(verdict: VerdictLike) -> dict[str, Any]:
    ours = verdict.ours
    return {
        "name": verdict.name,
        "met": bool(verdict.met),
        "ours": None if ours is None or math.isnan(ours) else ours,
        "target": verdict.target,
        "op": verdict.op,
        "paper": verdict.paper,
        "detail": verdict.detail,
        **({"facts": dict(facts)} if (facts := getattr(verdict, "facts", None)) else {}),
    }
