"""``fairacq relational learn``: warnings on stderr and in summary.json, metrics as JSON."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from fairacq.cli import app
from fairacq.relational import FairA3SL

runner = CliRunner()


def test_learn_warns_on_a_missed_bound_and_undecayed_exploration(tmp_path, monkeypatch):
    plain = FairA3SL.predict

    def unfair(self, data, *, fair=True):  # as if test inference had missed the constraint
        frame = plain(self, data, fair=fair)
        protected = frame["arg0"].isin(data.protected.iloc[:, 0].astype(str))
        frame["value"] = protected * 0.0142 + 0.5
        return frame

    monkeypatch.setattr(FairA3SL, "predict", unfair)
    monkeypatch.setenv("FAIRACQ_PROGRESS", "off")  # stderr: the warnings only, however slow
    out = tmp_path / "learned"
    res = runner.invoke(
        app,
        ["relational", "learn", "--dataset", "compas", "--fair", "rd<=0.01", "--episodes", "1",
         "--out", str(out)],
    )  # fmt: skip
    assert res.exit_code == 0, res.output
    warnings = [line for line in res.stderr.splitlines() if line.startswith("warning: ")]
    assert len(warnings) == len(res.stderr.splitlines()) == 2
    assert warnings[0].startswith("warning: Fair-A3SL: exploration did not decay")
    assert warnings[1].startswith("warning: test RD -0.0142 exceeds the bound 0.01 (rd<=0.01)")
    assert len(res.stdout.strip().splitlines()) == 1
    summary = json.loads((out / "summary.json").read_text())
    assert summary["warnings"] == [w.removeprefix("warning: ") for w in warnings]
    assert summary["dataset"] == "compas"
    assert summary["fairness"] == ["rd<=0.01"]
    assert json.loads((out / "metrics.json").read_text()) == summary
    assert (out / "rules.psl").read_text().strip()
    assert (out / "history.csv").read_text().startswith("episode,")
    _check_trace(out, summary)


def _check_trace(out, summary):
    """The run's trace: trace.parquet + trace.json, loadable as every command's is."""
    from fairacq import Trace, __version__

    trace = Trace.load(out)
    rows = trace.to_frame()
    assert set(rows["phase"]) == {"agent"}  # no --refine-evaluations: no local-search rows
    assert rows["update"].tolist() == list(range(1, len(rows) + 1))
    assert rows["cost"].tolist() == rows["episodes"].tolist()
    assert rows["episodes"].iloc[-1] >= 1
    assert rows["best_reward"].iloc[-1] == summary["best_reward"]
    assert summary["refine_moves"] == []
    assert trace.meta["method"] == "fair-a3sl"
    assert trace.meta["config"]["n_episodes"] == 1
    assert trace.meta["config"]["fairness"] == ["rd<=0.01"]
    assert trace.meta["seed"] == 0
    assert trace.meta["fairacq_version"] == __version__
