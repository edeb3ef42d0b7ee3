from __future__ import annotations

import shutil

import numpy as np
import pytest
import torch
from gymnasium.utils.env_checker import check_env
from sklearn.base import clone

from fairacq import Trace
from fairacq.data import FairDataset, load_adult, load_toy
from fairacq.exceptions import (
    CorruptFileError,
    InvalidDataError,
    InvalidParameterError,
    NotFittedError,
)
from fairacq.features import DADI, Acquisition

QUICK = {
    "n_pretrain_iter": 40,
    "n_train_iter": 8,
    "n_parallel": 16,
    "batch_size": 32,
    "epsilon_decay_iter": 4,
    "target_update": 3,
}


@pytest.fixture(scope="module")
def adult():
    ds = load_adult(sensitive="sex")
    rows = np.random.default_rng(0).choice(len(ds), 1200, replace=False)
    return ds.subset(rows)


@pytest.fixture(scope="module")
def fitted(adult):
    return DADI(gamma=0.5, random_state=0, **QUICK).fit(adult)


@pytest.fixture(scope="module")
def other_seed(adult):
    """``fitted``'s model from another seed (another model, the same shapes)."""
    return DADI(gamma=0.5, random_state=1, **QUICK).fit(adult)


def _every_row(folder):
    """A checkpoint written after every trace row (so the last one is kept)."""
    from fairacq import CheckpointCallback

    return CheckpointCallback(folder, every=1)


def _states(model):
    return [model.agent_.state_dict(), model.adversary_.state_dict()]


def _same_states(a, b):
    return all(
        torch.equal(x[k], y[k]) for x, y in zip(_states(a), _states(b), strict=True) for k in x
    )


def test_quick_end_to_end_on_adult(adult, fitted):
    assert fitted.columns_ == adult.feature_names
    assert len(fitted.feature_groups_) == 12
    assert fitted.n_iter_ == QUICK["n_train_iter"]
    h = fitted.trace_.to_frame()
    assert set(h["phase"]) == {"pretrain-classifier", "pretrain-adversary", "joint"}
    assert h.loc[h.phase == "joint", "iteration"].tolist() == list(range(1, 9))
    assert h.loc[h.phase != "joint", "val_auc"].between(0, 1).all()
    n_pre = QUICK["n_pretrain_iter"]
    assert h["cost"].iloc[-1] == 2 * n_pre + QUICK["n_train_iter"]
    assert fitted.trace_.meta["method"] == "dadi"
    assert fitted.trace_.meta["config"]["gamma"] == 0.5

    X = adult.X.iloc[:50]
    out = fitted.acquire(X.iloc[0])
    assert isinstance(out, Acquisition)
    assert set(out.features) <= set(fitted.feature_groups_)
    assert len(set(out.features)) == len(out.features)
    # the probability is the classifier's on exactly the revealed columns (a second route:
    # the policy's mask passed explicitly)
    row_mask = fitted.acquisition_mask(X.iloc[:1])
    assert out.proba == pytest.approx(float(fitted.predict_proba(X.iloc[:1], mask=row_mask)[0]))
    assert fitted.acquire(X.iloc[0].to_dict()) == out

    mask = fitted.acquisition_mask(X)
    assert mask.shape == (50, X.shape[1])
    assert mask.dtype == bool
    # the revealed columns of row 0 are exactly its acquired groups
    revealed = {
        g for g, cols in fitted.feature_groups_.items() if mask[0, X.columns.get_loc(cols[0])]
    }
    assert revealed == set(out.features)
    # groups are revealed whole
    for cols in fitted.feature_groups_.values():
        idx = [X.columns.get_loc(c) for c in cols]
        assert (mask[:, idx].all(axis=1) | ~mask[:, idx].any(axis=1)).all()

    Xt = fitted.transform(X)
    assert list(Xt.columns) == list(X.columns)
    assert (Xt.index == X.index).all()
    np.testing.assert_array_equal(Xt.notna().to_numpy(), mask)
    np.testing.assert_allclose(Xt.to_numpy()[mask], X.to_numpy()[mask])

    p = fitted.predict_proba(X)
    assert p.shape == (50,)
    assert p[0] == pytest.approx(out.proba)
    np.testing.assert_allclose(fitted.predict_proba(X, mask=mask), p, rtol=1e-6)
    # with an explicit mask NaN outside it is fine (the output of transform)
    np.testing.assert_allclose(fitted.predict_proba(Xt, mask=mask), p, rtol=1e-6)
    full = fitted.predict_proba(X, mask=np.ones(X.shape[1], dtype=bool))
    assert full.shape == (50,)
    assert not np.allclose(full, p)
    g = fitted.predict_group_proba(X)
    assert g.shape == (50, 2)
    np.testing.assert_allclose(g.sum(axis=1), 1.0)


def test_rewards_are_eq2_of_the_models_networks(adult, fitted):
    from fairacq.features.dadi._rewards import terminal_reward

    X, y, s = adult.X.iloc[:60], adult.y[:60], np.asarray(adult.s)[:60]
    mask = fitted.acquisition_mask(X)
    expected = terminal_reward(
        fitted.predict_proba(X, mask=mask),
        y,
        fitted.predict_group_proba(X, mask=mask),
        s,
        gamma=0.5,
        kind=fitted.reward,
        weights=fitted.group_weights_,
    )
    np.testing.assert_allclose(fitted.rewards(X, y, s), expected)
    # a static subset for everybody: revealing nothing pays no classification skill
    nothing = fitted.rewards(X, y, s, mask=np.zeros(X.shape[1], dtype=bool))
    everything = fitted.rewards(X, y, s, mask=np.ones(X.shape[1], dtype=bool))
    assert nothing.shape == everything.shape == (60,)
    assert not np.allclose(nothing, everything)
    with pytest.raises(InvalidDataError, match="one label and one group code per row"):
        fitted.rewards(X, y[:10], s)
    with pytest.raises(NotFittedError):
        DADI().rewards(X, y, s)


def test_env_of_a_fitted_model_passes_the_checker(adult, fitted):
    env = fitted.make_env(adult.subset(np.arange(100)))
    check_env(env, skip_render_check=True)


def test_deterministic_for_a_seed(adult, fitted, other_seed):
    again = DADI(gamma=0.5, random_state=0, **QUICK).fit(adult)
    assert _same_states(again, fitted)
    assert again.trace_ == fitted.trace_
    assert not _same_states(other_seed, fitted)


def test_hyper_parameters_untouched_and_clonable(fitted):
    params = fitted.get_params()
    assert clone(fitted).get_params() == params
    assert params["gamma"] == 0.5
    assert params["n_train_iter"] == QUICK["n_train_iter"]


def test_save_load_round_trip(tmp_path, adult, fitted):
    fitted.save(tmp_path / "model")
    assert {p.name for p in (tmp_path / "model").iterdir()} == {
        "agent.pt",
        "adversary.pt",
        "config.json",
        "manifest.json",
        "trace.json",
        "trace.parquet",
    }
    loaded = DADI.load(tmp_path / "model")
    assert _same_states(loaded, fitted)
    assert loaded.get_params() == fitted.get_params()
    assert loaded.feature_groups_ == fitted.feature_groups_
    X = adult.X.iloc[:30]
    np.testing.assert_array_equal(loaded.acquisition_mask(X), fitted.acquisition_mask(X))
    np.testing.assert_allclose(loaded.predict_proba(X), fitted.predict_proba(X))
    assert loaded.trace_ == fitted.trace_
    assert Trace.load(tmp_path / "model") == fitted.trace_  # like any run folder's trace
    # a table from another feature set
    with pytest.raises(InvalidDataError, match="another feature set"):
        loaded.transform(X.drop(columns=X.columns[:2]))


def test_a_model_saved_before_traces_still_loads(tmp_path, adult, fitted):
    import json

    folder = tmp_path / "old"
    fitted.save(folder)
    for name in ("trace.parquet", "trace.json", "manifest.json"):  # none of them kept then
        (folder / name).unlink()
    (folder / "history.json").write_text("[]")  # what older versions wrote instead
    config = json.loads((folder / "config.json").read_text())
    config["params"].update(checkpoint_dir=None, checkpoint_every=1000)  # options since removed
    (folder / "config.json").write_text(json.dumps(config))
    loaded = DADI.load(folder)
    assert not hasattr(loaded, "trace_")
    X = adult.X.iloc[:30]
    np.testing.assert_allclose(loaded.predict_proba(X), fitted.predict_proba(X))


def test_load_rejects_bad_files(tmp_path, fitted):
    with pytest.raises(CorruptFileError, match="missing"):
        DADI.load(tmp_path / "nothing")
    fitted.save(tmp_path / "m")
    (tmp_path / "m" / "agent.pt").write_bytes(b"not a torch file")
    with pytest.raises(CorruptFileError, match=r"agent\.pt is not the file saved"):
        DADI.load(tmp_path / "m")  # the manifest's checksum refuses it first
    (tmp_path / "m" / "manifest.json").unlink()  # a folder from before the manifest
    with pytest.raises(CorruptFileError, match=r"agent\.pt"):
        DADI.load(tmp_path / "m")
    for name, text, words in (
        ("m2", "{broken", "not valid JSON"),
        ("m3", '{"format": "other"}', "not a valid DADI"),
    ):
        fitted.save(tmp_path / name)
        (tmp_path / name / "config.json").write_text(text)
        with pytest.raises(CorruptFileError, match=r"config\.json is not the file saved"):
            DADI.load(tmp_path / name)
        (tmp_path / name / "manifest.json").unlink()
        with pytest.raises(CorruptFileError, match=words):
            DADI.load(tmp_path / name)


def test_save_replaces_a_model_whole_and_nothing_else(tmp_path, fitted):
    folder = tmp_path / "m"
    fitted.save(folder)
    (folder / "history.json").write_text("[]")  # a file an older save left behind
    fitted.save(folder)  # an earlier model is replaced whole: nothing of it is left
    assert not (folder / "history.json").exists()
    assert DADI.load(folder).trace_ == fitted.trace_
    (folder / "notes.txt").write_text("mine")
    with pytest.raises(
        InvalidParameterError, match=r"holds files that are not a saved model \(notes"
    ):
        fitted.save(folder)
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "data.csv").write_text("a\n1\n")
    with pytest.raises(InvalidParameterError, match=r"data\.csv"):
        fitted.save(tmp_path / "other")
    assert (tmp_path / "other" / "data.csv").read_text() == "a\n1\n"


def test_resume_from_checkpoint_equals_uninterrupted(tmp_path):
    ds = load_toy(n=160)
    params = dict(QUICK, n_pretrain_iter=10, random_state=3)
    whole = DADI(**dict(params, n_train_iter=6)).fit(ds)
    ckpt = tmp_path / "ckpt"
    first = DADI(**dict(params, n_train_iter=3)).fit(ds, callbacks=[_every_row(ckpt)])
    assert first.n_iter_ == 3
    resumed = DADI(**dict(params, n_train_iter=6)).fit(ds, continue_from=ckpt)
    assert resumed.n_iter_ == 6
    assert _same_states(resumed, whole)
    assert resumed.trace_.to_frame().equals(whole.trace_.to_frame())

    # a checkpoint of other parameters or another feature set is refused
    with pytest.raises(InvalidParameterError, match="gamma"):
        DADI(**dict(params, gamma=0.9)).fit(ds, continue_from=ckpt)
    X = ds.X.drop(columns=["x4"])
    groups = {k: v for k, v in ds.feature_groups.items() if k != "x4"}
    other = FairDataset(X, ds.y, ds.sensitive, feature_groups=groups)
    with pytest.raises(InvalidDataError, match="another feature set"):
        DADI(**params).fit(other, continue_from=ckpt)
    # a torn checkpoint is detected
    torn = tmp_path / "torn"
    shutil.copytree(ckpt, torn)
    (torn / "checkpoint.pt").write_bytes(b"xx")
    with pytest.raises(CorruptFileError, match="checksum"):
        DADI(**params).fit(ds, continue_from=torn)


def test_shared_pretraining_equals_a_fit_from_scratch():
    ds = load_toy(n=160)
    params = dict(QUICK, n_pretrain_iter=10, n_train_iter=4, random_state=3)
    pre = DADI(**dict(params, n_train_iter=0)).fit(ds)
    for gamma, reward in ((0.3, "gnl1"), (0.8, "ce")):
        scratch = DADI(**dict(params, gamma=gamma, reward=reward)).fit(ds)
        shared = DADI(**dict(params, gamma=gamma, reward=reward)).fit(ds, pretrained=pre)
        assert _same_states(shared, scratch)
        assert shared.trace_.to_frame().equals(scratch.trace_.to_frame())
    # the pretrained model itself is untouched by the fits that copied it
    assert _same_states(pre, DADI(**dict(params, n_train_iter=0)).fit(ds))


def test_shared_pretraining_is_refused_when_it_would_differ():
    ds = load_toy(n=160)
    params = dict(QUICK, n_pretrain_iter=10, n_train_iter=2, random_state=3)
    pre = DADI(**dict(params, n_train_iter=0)).fit(ds)
    with pytest.raises(InvalidParameterError, match="n_pretrain_iter=10, not 11"):
        DADI(**dict(params, n_pretrain_iter=11)).fit(ds, pretrained=pre)
    with pytest.raises(InvalidDataError, match="other rows or columns"):
        DADI(**params).fit(ds.subset(np.arange(150)), pretrained=pre)
    joint = DADI(**params).fit(ds)
    with pytest.raises(InvalidParameterError, match="trained jointly for 2"):
        DADI(**params).fit(ds, pretrained=joint)
    with pytest.raises(InvalidParameterError, match="fitted in this session"):
        DADI(**params).fit(ds, pretrained=DADI(**params))


def test_no_grouping_and_multigroup():
    ds = load_toy(n=150, n_groups=3)
    plain = FairDataset(ds.X, ds.y, ds.sensitive)  # no feature groups
    model = DADI(**dict(QUICK, n_pretrain_iter=10, n_train_iter=3, random_state=0)).fit(plain)
    assert list(model.feature_groups_) == model.columns_
    assert model.predict_group_proba(plain.X.iloc[:5]).shape == (5, 3)


@pytest.mark.parametrize(
    ("params", "match"),
    [
        ({"gamma": 1.5}, "'gamma' parameter of DADI"),
        ({"gamma": -0.1}, "'gamma' parameter of DADI"),
        ({"reward": "l2"}, "'reward' parameter of DADI"),
        ({"n_step": 0}, "'n_step' parameter of DADI"),
    ],
)
def test_bad_parameters(params, match):
    with pytest.raises(InvalidParameterError, match=match):
        DADI(**params).fit(load_toy(n=60))


def test_bad_data(fitted, adult):
    toy = load_toy(n=100)
    one_group = toy.subset(np.flatnonzero(toy.s == 0))
    with pytest.raises(InvalidDataError, match="single group"):
        DADI(**dict(QUICK, n_pretrain_iter=2, n_train_iter=1)).fit(one_group)
    X = adult.X.iloc[:5].copy()
    X.iloc[2, 0] = np.nan
    with pytest.raises(InvalidDataError, match="NaN"):
        fitted.transform(X)
    with pytest.raises(InvalidDataError, match="NaN"):
        fitted.predict_proba(X)
    with pytest.raises(InvalidDataError, match="mask has shape"):
        fitted.predict_proba(adult.X.iloc[:5], mask=np.ones((5, 3), dtype=bool))
    with pytest.raises(InvalidDataError, match="one individual"):
        fitted.acquire(adult.X.iloc[:2])
    with pytest.raises(NotFittedError, match="not fitted"):
        DADI().transform(adult.X.iloc[:2])


def test_hot_set_elements_fit_save_load_and_resume(tmp_path, adult):
    params = dict(QUICK, n_pretrain_iter=10, n_train_iter=4, random_state=1)
    ckpt = tmp_path / "ckpt"  # its checkpoint, for the refused resume below
    hot = DADI(set_elements="hot", **params).fit(adult, callbacks=[_every_row(ckpt)])
    assert hot.agent_.encoder.elements is not None
    assert hot.adversary_.encoder.elements is not None
    X = adult.X.iloc[:40]
    assert np.isfinite(hot.predict_proba(X)).all()
    assert isinstance(hot.acquire(X.iloc[0]), Acquisition)
    # another element set, another model (both from the same seed)
    plain = DADI(**params).fit(adult)
    assert not np.allclose(plain.predict_proba(X), hot.predict_proba(X))
    hot.save(tmp_path / "hot")
    loaded = DADI.load(tmp_path / "hot")
    assert loaded.set_elements == "hot"
    assert loaded.agent_.encoder.elements is not None
    np.testing.assert_allclose(loaded.predict_proba(X), hot.predict_proba(X))
    # resuming is refused when the element set differs; a pre-training too
    with pytest.raises(InvalidParameterError, match="set_elements='hot', not 'columns'"):
        DADI(**params).fit(adult, continue_from=ckpt)
    pre = DADI(**dict(params, n_train_iter=0)).fit(adult)
    with pytest.raises(InvalidParameterError, match="set_elements='columns', not 'hot'"):
        DADI(set_elements="hot", **params).fit(adult, pretrained=pre)
    with pytest.raises(InvalidParameterError, match="set_elements"):
        DADI(set_elements="sparse", **params).fit(adult)


def test_checkpoint_without_a_newer_parameter_resumes_with_its_default(tmp_path):
    import json

    ds = load_toy(n=160)
    params = dict(QUICK, n_pretrain_iter=10, random_state=3)
    whole = DADI(**dict(params, n_train_iter=4)).fit(ds)
    ckpt = tmp_path / "ckpt"
    DADI(**dict(params, n_train_iter=2)).fit(ds, callbacks=[_every_row(ckpt)])
    meta_path = ckpt / "checkpoint.json"
    meta = json.loads(meta_path.read_text())
    del meta["params"]["set_elements"]  # as written before the parameter existed
    meta_path.write_text(json.dumps(meta))
    resumed = DADI(**dict(params, n_train_iter=4)).fit(ds, continue_from=ckpt)
    assert _same_states(resumed, whole)


class _Interrupt(Exception):
    """Raised by a callback to simulate a killed run."""


def _interrupt_after(k):
    def callback(rec):
        if rec.n_steps > k:
            raise _Interrupt

    return callback


def _all_tensors_equal(a, b):
    return all(
        torch.equal(x[k], y[k])
        for x, y in zip(_states(a), _states(b), strict=True)
        for k in x.keys() | y.keys()
    )


@pytest.fixture(scope="module")
def uninterrupted():
    ds = load_toy(n=160)
    params = dict(QUICK, n_pretrain_iter=10, n_train_iter=6, random_state=3)
    return ds, params, DADI(**params).fit(ds)


# rows: 2 pre-training evaluations, then 6 joint iterations; k=1 stops right after
# pre-training (kept by the checkpoint written then), k=4 and k=7 during the joint phase
@pytest.mark.parametrize("k", [1, 4, 7])
def test_interrupted_then_resumed_equals_uninterrupted(k, tmp_path, uninterrupted):
    from fairacq import CheckpointCallback

    ds, params, full = uninterrupted
    assert (
        full.trace_.to_frame()["phase"].tolist()
        == ["pretrain-classifier"] + ["pretrain-adversary"] + ["joint"] * 6
    )
    assert full.trace_.to_frame()["cost"].tolist() == [10, 20, *range(21, 27)]
    ck = tmp_path / "ck"
    with pytest.raises(_Interrupt):
        DADI(**params).fit(ds, callbacks=[CheckpointCallback(ck, every=3), _interrupt_after(k)])
    assert {p.name for p in ck.iterdir()} == {
        "trace.parquet",
        "trace.json",
        "checkpoint.pt",
        "checkpoint.json",
    }
    partial = Trace.load(ck)
    assert len(partial) == (2 if k < 3 else 3 * (k // 3))  # after pre-training, every 3 rows
    for source in (ck, partial):
        resumed = DADI(**params).fit(ds, continue_from=source)
        assert resumed.trace_ == full.trace_
        assert resumed.trace_.meta["resumed_at_step"] == len(partial)
        assert _all_tensors_equal(resumed, full)
        X = ds.X.iloc[:40]
        np.testing.assert_array_equal(resumed.acquisition_mask(X), full.acquisition_mask(X))
        assert resumed.n_iter_ == full.n_iter_ == 6


def test_resume_needs_the_folder_and_the_same_run(tmp_path, uninterrupted):
    from fairacq import CheckpointCallback

    ds, params, full = uninterrupted
    with pytest.raises(InvalidDataError, match="checkpoint folder"):
        DADI(**params).fit(ds, continue_from=full.trace_)  # the trace alone lacks the networks
    ck = tmp_path / "ck"
    with pytest.raises(_Interrupt):
        DADI(**params).fit(ds, callbacks=[CheckpointCallback(ck, every=1), _interrupt_after(4)])
    with pytest.raises(InvalidParameterError, match="gamma"):
        DADI(**dict(params, gamma=0.9)).fit(ds, continue_from=ck)
    # a trace and networks of different iterations do not belong together
    other = tmp_path / "other"
    shutil.copytree(ck, other)
    short = Trace(Trace.load(ck).to_frame().iloc[:3], Trace.load(ck).meta)
    short.save(other / "trace")
    with pytest.raises(CorruptFileError, match="do not belong together"):
        DADI(**params).fit(ds, continue_from=other)


def test_checkpoint_folder_with_other_files_is_refused(tmp_path):
    (tmp_path / "results.csv").write_text("keep me")
    with pytest.raises(InvalidParameterError, match="folder of its own"):
        DADI(**QUICK).fit(load_toy(n=100), callbacks=[_every_row(tmp_path)])
    assert (tmp_path / "results.csv").read_text() == "keep me"


@pytest.mark.parametrize(
    ("edit", "match"),
    [
        (lambda c: c["params"].update(gamma="high"), "'gamma' parameter"),
        (lambda c: c.update(scale_std=[0.0] * len(c["scale_std"])), "scale_std holds values"),
        (lambda c: c.update(group_weights=[float("nan")] * len(c["group_weights"])),
         "group_weights holds"),
    ],
)  # fmt: skip
def test_load_refuses_a_tampered_configuration(tmp_path, fitted, edit, match):
    import json

    fitted.save(tmp_path / "m")
    cfg = json.loads((tmp_path / "m" / "config.json").read_text())
    edit(cfg)
    (tmp_path / "m" / "config.json").write_text(json.dumps(cfg))
    with pytest.raises(CorruptFileError, match="checksum differs"):
        DADI.load(tmp_path / "m")  # the manifest refuses any edit
    from fairacq._artefact import write_manifest

    write_manifest(tmp_path / "m", format="dadi-model/1")  # made consistent: values checked
    with pytest.raises(CorruptFileError, match=match) as info:
        DADI.load(tmp_path / "m")
    assert "\n" not in str(info.value)


def test_load_refuses_a_folder_mixing_two_saves(tmp_path, fitted, other_seed):
    import shutil

    fitted.save(tmp_path / "a")
    other_seed.save(tmp_path / "b")
    shutil.copy(tmp_path / "b" / "agent.pt", tmp_path / "a" / "agent.pt")
    with pytest.raises(CorruptFileError, match=r"agent\.pt is not the file saved with"):
        DADI.load(tmp_path / "a")


@pytest.mark.parametrize("bad", [np.inf, -np.inf, 1e300])
def test_acquire_refuses_values_it_cannot_use(fitted, adult, bad):
    X = adult.X.iloc[:5].copy()
    X.iloc[2, 0] = bad
    with pytest.raises(InvalidDataError, match=r"infinite or too large values \(row 2"):
        fitted.acquire(X)
