"""Progress on stderr: a rich bar on a terminal, plain lines otherwise; stdout stays clean."""

from __future__ import annotations

import contextlib
import io
import json
import re
import time
import warnings
from types import SimpleNamespace

import pytest
from rich.console import Console
from typer.testing import CliRunner

from fairacq import TraceRecorder
from fairacq._callbacks import ProgressCallback
from fairacq.cli import app
from fairacq.cli.shared import _errors, _progress
from fairacq.cli.shared._progress import ProgressBar, progress, run_callback

ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def _terminal() -> tuple[Console, io.StringIO]:
    buf = io.StringIO()
    return Console(file=buf, force_terminal=True, width=120, color_system=None), buf


def _log() -> tuple[Console, io.StringIO]:
    buf = io.StringIO()
    return Console(file=buf, force_terminal=False, width=120), buf


def _text(buf: io.StringIO) -> str:
    return ANSI.sub("", buf.getvalue()).replace("\r", "\n")


def test_the_plain_line_names_the_count_elapsed_and_time_left():
    bar = ProgressBar("acquire", 40, "batches")
    bar.started -= 31
    bar(12)
    assert bar.line() == "acquire: 12/40 batches, 0:00:31 elapsed, ~0:01:12 left"
    bar.update(40)
    assert bar.line(final=True) == "acquire: 40/40 batches, 0:00:31 elapsed, done"
    unknown = ProgressBar("reproduce", None, "tasks")
    unknown.update(3.0)
    assert unknown.line() == "reproduce: 3 tasks, 0:00:00 elapsed"


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """The clock of the progress module, moved by hand: ``clock[0] += 25``."""
    now = [1000.0]
    monkeypatch.setattr(_progress, "time", SimpleNamespace(monotonic=lambda: now[0]))
    return now


def test_the_time_left_leaves_out_work_done_before_this_run(clock):
    bar = ProgressBar("peers-rows (full)", None, "tasks")
    bar.update(40, total=60, resumed=40)  # 40 tasks reused from the cache at once
    clock[0] += 25
    assert bar.time_left() is None  # no task of this run done yet: no estimate
    assert bar.line() == "peers-rows (full): 40/60 tasks (40 done before), 0:00:25 elapsed"
    clock[0] += 575
    bar.update(42)  # two tasks run in 600 s: 300 s each, 18 to go
    assert bar.time_left() == pytest.approx(5400.0)
    assert bar.line() == (
        "peers-rows (full): 42/60 tasks (40 done before), 0:10:00 elapsed, ~1:30:00 left"
    )
    bar.update(60)
    assert bar.time_left() == 0.0
    assert bar.line(final=True) == (
        "peers-rows (full): 60/60 tasks (40 done before), 0:10:00 elapsed, done"
    )


def test_no_time_left_before_any_work_or_without_a_total(clock):
    fresh = ProgressBar("acquire", 40, "batches")
    clock[0] += 10
    assert fresh.time_left() is None
    assert fresh.line() == "acquire: 0/40 batches, 0:00:10 elapsed"
    fresh(4)
    assert fresh.line() == "acquire: 4/40 batches, 0:00:10 elapsed, ~0:01:30 left"
    unknown = ProgressBar("reproduce", None, "tasks")
    unknown.update(3, resumed=1)
    assert unknown.time_left() is None


def test_the_terminal_bar_estimates_the_time_left_from_this_runs_work(clock):
    console, buf = _terminal()
    bar = ProgressBar("reproduce", 60, "tasks")
    bar.update(40, resumed=40)
    display = _progress._RichDisplay(bar, 0.0, console)
    clock[0] += 25
    display.draw(25.0)
    assert re.search(r"40/60 tasks • \S+ • left -:--:--", _text(buf)), _text(buf)
    clock[0] += 575
    bar.update(42)
    display.draw(600.0)
    display.finish(False)
    assert re.search(r"42/60 tasks • \S+ • left 1:30:00", _text(buf)), _text(buf)


def test_a_terminal_gets_a_bar_with_done_total_and_time_left():
    console, buf = _terminal()
    with progress("acquire", 10, "batches", console=console, delay=0) as bar:
        for _ in range(4):
            bar()
            time.sleep(0.25)
    text = _text(buf)
    assert "acquire" in text
    assert re.search(r"[1-4]/10 batches", text)
    assert "left" in text
    assert "4/4 batches" in text  # a run that ends early ends with a full bar


def test_a_log_gets_a_plain_line_every_interval_and_a_last_one():
    console, buf = _log()
    with progress("sample", 6, "samples", console=console, delay=0, interval=0.2) as bar:
        for _ in range(3):
            bar(2)
            time.sleep(0.5)
    lines = buf.getvalue().splitlines()
    assert len(lines) >= 3
    assert all(line.startswith("sample: ") for line in lines)
    assert re.fullmatch(r"sample: \d/6 samples, 0:00:0\d elapsed(, ~0:00:0\d left)?", lines[0])
    assert lines[-1].startswith("sample: 6/6 samples, ")
    assert lines[-1].endswith(", done")
    assert "\x1b" not in buf.getvalue()


@pytest.mark.parametrize("make", [_terminal, _log])
def test_a_run_shorter_than_the_delay_prints_nothing(make):
    console, buf = make()
    with progress("filter", 3, "chunks", console=console) as bar:
        bar(3)
    assert buf.getvalue() == ""


def test_progress_can_be_turned_off(monkeypatch):
    monkeypatch.setenv("FAIRACQ_PROGRESS", "off")
    console, buf = _log()
    with progress("x", 2, console=console, delay=0, interval=0) as bar:
        bar()
        time.sleep(0.5)
    assert buf.getvalue() == ""


def _fail_after_a_step(console: Console) -> None:
    with progress("dadi", 5, "iterations", console=console, delay=0, interval=0.2) as bar:
        bar()
        time.sleep(0.5)
        raise RuntimeError("boom")


def test_an_error_stops_the_display_without_a_last_line():
    console, buf = _log()
    with pytest.raises(RuntimeError):
        _fail_after_a_step(console)
    assert buf.getvalue()
    assert "done" not in buf.getvalue()


def test_progress_callback_counts_rows_or_a_column_and_goes_on_after_a_resume():
    seen: list[float] = []
    rec = TraceRecorder(method="m", config={}, random_state=0)
    for cost in (0, 5, 10):
        rec.record(cost=cost)
    assert ProgressCallback(seen.append, offset=1)(rec) is True
    ProgressCallback(seen.append, column="cost")(rec)
    ProgressCallback(seen.append, column="cost", offset=20)(rec)
    ProgressCallback(seen.append, column="absent")(rec)
    resumed = TraceRecorder(method="m", config={}, random_state=0, continue_from=rec.finish())
    resumed.record(cost=15)
    ProgressCallback(seen.append, offset=1)(resumed)
    assert seen == [2.0, 10.0, 0.0, 3.0]


def _toy_split():
    from fairacq.data import load_toy

    ds = load_toy(900, random_state=1)
    return ds.subset(range(200)), ds.subset(range(200, 400)), ds.subset(range(400, 900))


@pytest.mark.parametrize("stop_after", [None, 2])
def test_run_callback_moves_a_bar_with_an_acquirers_batches(stop_after):
    from fairacq.acquisition import make_acquirer

    train, val, pool = _toy_split()
    acq = make_acquirer("random", budget=60, batch_size=15, random_state=0, tau=0.0)
    console, buf = _terminal()
    callbacks = [] if stop_after is None else [lambda rec: rec.n_steps <= stop_after]
    with (
        warnings.catch_warnings(),
        progress("acquire", 4, "batches", console=console, delay=0) as bar,
    ):
        warnings.simplefilter("ignore")
        acq.fit(train, pool, validation=val, callbacks=[run_callback(bar, offset=1), *callbacks])
        time.sleep(0.3)
    done = stop_after or 4
    assert bar.completed == done
    assert f"{done}/{done} batches" in _text(buf)  # a run stopped early ends with a full bar


def test_run_callback_counts_a_samplers_samples_by_cost():
    from fairacq.sampling import DatasetOracle, make_sampler

    train, _, _ = _toy_split()
    bar = ProgressBar("sample", 40, "samples")
    sampler = make_sampler("uniform", budget=40, random_state=0)
    trace = sampler.fit(DatasetOracle(train), callbacks=[run_callback(bar, column="cost")]).trace_
    assert bar.completed == trace.to_frame()["cost"].iloc[-1]
    assert 30 < bar.completed <= 40


def test_a_resumed_acquisition_starts_its_bar_at_the_checkpoints_cost(tmp_path, monkeypatch):
    from fairacq.cli.acquire._acquire_run import checkpointing, run_method

    recorder = TraceRecorder(method="random", config={}, random_state=0)
    for cost in (0, 20, 40):
        recorder.record(cost=cost)
    stamp = {"files": {}, "options": {"--seed": 0}}  # what the checkpoint was written for
    recorder.finish(run_inputs=stamp).save(tmp_path / "checkpoint")
    resuming = checkpointing(tmp_path, 0, True, stamp)
    assert resuming == {"continue_from": tmp_path / "checkpoint", "resumed": 40.0}
    bars: list[ProgressBar] = []

    @contextlib.contextmanager
    def shown(description, total, unit):
        bars.append(ProgressBar(description, total, unit))
        yield bars[-1]

    class Acquirer:
        budget = 100

        def fit(self, train, pool, *, validation, test, costs, executor, callbacks, continue_from):
            seen.append((bars[0].completed, bars[0].resumed, continue_from))
            return self

    seen: list[tuple[float, float, object]] = []
    monkeypatch.setattr(_progress, "progress", shown)
    inputs = SimpleNamespace(costs=None, train=None, pool=None, validation=None, test=None)
    run_method(Acquirer(), "random", inputs, None, resuming)
    assert seen == [(40.0, 40.0, tmp_path / "checkpoint")]


def _reproduce(tmp_path, *extra):
    args = [
        "reproduce", "filtering-fig1", "--seeds", "1", "--executor", "serial",
        "--set", "alphas=[0.2]", "--set", "max_rows=1500", "--out", str(tmp_path), *extra,
    ]  # fmt: skip
    return CliRunner().invoke(app, args)


def test_reproduce_prints_plain_progress_lines_on_stderr_and_clean_json(tmp_path, monkeypatch):
    monkeypatch.setattr(_progress, "DELAY", 0.0)
    monkeypatch.setattr(_progress, "PLAIN_INTERVAL", 0.0)
    res = _reproduce(tmp_path, "--json")
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout)["experiment"] == "filtering-fig1"
    lines = res.stderr.splitlines()
    assert lines
    assert all(line.startswith("filtering-fig1 (quick): ") for line in lines), res.stderr
    assert any(re.search(r": \d+/\d+ tasks, \d:\d\d:\d\d elapsed", line) for line in lines)
    assert lines[-1].endswith(", done")


def test_reproduce_shows_a_bar_on_a_terminal(tmp_path, monkeypatch):
    console, buf = _terminal()
    monkeypatch.setattr(_errors, "err_console", console)
    monkeypatch.setattr(_progress, "DELAY", 0.0)
    res = _reproduce(tmp_path, "--json")
    assert res.exit_code == 0, res.output
    json.loads(res.stdout)
    text = _text(buf)
    assert "filtering-fig1 (quick)" in text
    assert re.search(r"(\d+)/\1 tasks", text)


def test_a_resumed_reproduce_marks_its_reused_tasks_on_the_bar(tmp_path, monkeypatch):
    assert _reproduce(tmp_path).exit_code == 0
    entries = sorted((tmp_path / "task-cache").glob("*.jsonl"))
    assert len(entries) >= 2
    entries[0].unlink()  # one task left to run again
    seen: list[tuple[float | None, float | None, float | None]] = []
    update = ProgressBar.update

    def spy(self, completed=None, *, total=None, resumed=None):
        seen.append((completed, total, resumed))
        update(self, completed, total=total, resumed=resumed)

    monkeypatch.setattr(ProgressBar, "update", spy)
    res = _reproduce(tmp_path, "--json")
    assert res.exit_code == 0, res.output
    n = len(entries)
    assert seen[-1] == (n, n, n - 1)
    assert (n - 1, n, n - 1) in seen  # the reused tasks arrive at once, before the run one
    assert json.loads((tmp_path / "summary.json").read_text())["meta"]["tasks_reused"] == n - 1
