"""Dataset loaders: row and group counts from PROVENANCE, encoding, sensitive columns, errors."""

from __future__ import annotations

import gzip
import hashlib
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import fairacq.data.loaders.datasets._acs as acs_module
from fairacq.data import FairDataset
from fairacq.data.loaders import (
    DatasetNotFoundError,
    MovieLens100k,
    load_acs,
    load_adult,
    load_bank_marketing,
    load_compas,
    load_german,
    load_give_me_some_credit,
    load_movielens_100k,
    load_movielens_ratings,
    load_taiwan_credit,
    one_hot_encode,
)
from fairacq.exceptions import (
    InvalidDataError,
    InvalidParameterError,
    MissingDependencyError,
    UnknownNameError,
)

FIXTURES = Path(__file__).parent / "fixtures"
BUNDLED = Path(__file__).parents[2] / "src" / "fairacq" / "data" / "_bundled"

ACS_WY = "acs/2018/1-Year/psam_p56.csv.gz"
needs_wyoming = pytest.mark.needs_data(ACS_WY)


@pytest.fixture
def shared_data(shared_data: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """The offline datasets (tests/conftest.py decides and skips), with a fresh cache."""
    monkeypatch.setenv("FAIRACQ_DATA", str(shared_data))
    monkeypatch.setenv("FAIRACQ_CACHE", str(tmp_path / "cache"))
    return shared_data


def group_counts(ds: FairDataset) -> dict[str, int]:
    return {g: int(n) for g, n in zip(ds.group_names, ds.group_sizes(), strict=True)}


def check_common(ds: FairDataset, *, sensitive_sources: list[str]) -> None:
    """Invariants every loader must meet."""
    columns = ds.feature_names
    grouped = [c for cols in ds.feature_groups.values() for c in cols]
    assert sorted(grouped) == sorted(columns)  # every column in exactly one group
    assert len(grouped) == len(set(grouped))
    X = ds.X
    assert all(pd.api.types.is_float_dtype(X[c]) for c in columns)
    assert not X.isna().any().any()
    for source in sensitive_sources:  # sensitive columns stay out of X by default
        assert not [c for c in columns if c == source or c.startswith(f"{source}=")]
    assert set(np.unique(ds.y)) <= {0, 1}
    assert ds.metadata["n_rows"] == len(ds)
    assert ds.metadata["favourable_label"] in (0, 1)
    assert ds.metadata["licence"]
    assert set(ds.sensitive.columns) == set(ds.metadata["sensitive_attributes"])


# -- bundled files ------------------------------------------------------------------------------


def provenance_rows() -> list[tuple[str, int, str, int, str]]:
    text = (BUNDLED / "PROVENANCE.md").read_text(encoding="utf-8")
    pattern = re.compile(
        r"^\| `([^`]+)` \| (\d+) \| `([0-9a-f]{64})` \| (\d+) \| `([0-9a-f]{64})` \|$", re.M
    )
    return [(m[0], int(m[1]), m[2], int(m[3]), m[4]) for m in pattern.findall(text)]


def test_provenance_lists_every_bundled_file() -> None:
    listed = {row[0] for row in provenance_rows()}
    stored = {p.name for p in BUNDLED.iterdir() if p.name != "PROVENANCE.md"}
    assert listed == stored
    assert len(listed) == 5


@pytest.mark.parametrize("row", provenance_rows(), ids=lambda r: r[0])
def test_bundled_file_checksums(row: tuple[str, int, str, int, str]) -> None:
    name, size, sha, raw_size, raw_sha = row
    data = (BUNDLED / name).read_bytes()
    assert len(data) == size
    assert hashlib.sha256(data).hexdigest() == sha
    raw = gzip.decompress(data)
    assert len(raw) == raw_size
    assert hashlib.sha256(raw).hexdigest() == raw_sha


# -- Adult ------------------------------------------------------------------------------------


def test_adult_defaults_match_provenance() -> None:
    ds = load_adult()
    assert len(ds) == 45_222
    assert int(ds.y.sum()) == 11_208
    assert group_counts(ds) == {"Female": 14_695, "Male": 30_527}
    assert ds.privileged == "Male"
    assert ds.sensitive_attrs == ("sex",)
    assert list(ds.sensitive.columns) == ["sex", "race", "race_binary"]
    assert len(ds.feature_groups) == 12
    assert ds.feature_groups["workclass"][0].startswith("workclass=")
    check_common(ds, sensitive_sources=["sex", "race"])


@pytest.mark.parametrize(
    ("split", "drop_missing", "rows", "positives"),
    [
        ("train", True, 30_162, 7_508),
        ("test", True, 15_060, 3_700),  # test labels end in '.'
        ("all", False, 48_842, 11_687),
        ("train", False, 32_561, 7_841),
        ("test", False, 16_281, 3_846),
    ],
)
def test_adult_splits(split: str, drop_missing: bool, rows: int, positives: int) -> None:
    ds = load_adult(split=split, drop_missing=drop_missing)  # type: ignore[arg-type]
    assert (len(ds), int(ds.y.sum())) == (rows, positives)
    assert ds.metadata["split"] == split


def test_adult_train_and_test_share_columns() -> None:
    train, test = load_adult(split="train"), load_adult(split="test")
    assert train.feature_names == test.feature_names
    assert train.feature_groups == test.feature_groups
    assert "native-country=Holand-Netherlands" in test.feature_names  # only in the train file
    unknown = load_adult(drop_missing=False)
    assert "workclass=unknown" in unknown.feature_names
    assert not any(c.endswith("=?") for c in unknown.feature_names)


def test_adult_race_attributes() -> None:
    ds = load_adult(sensitive="race")
    assert group_counts(ds) == {
        "Amer-Indian-Eskimo": 435,
        "Asian-Pac-Islander": 1_303,
        "Black": 4_228,
        "Other": 353,
        "White": 38_903,
    }
    binary = load_adult(sensitive="race_binary")
    assert group_counts(binary) == {"White": 38_903, "non-White": 45_222 - 38_903}
    assert binary.privileged == "White"


def test_adult_four_race_sex_groups_of_paper_001() -> None:
    ds = load_adult(sensitive=("race_binary", "sex"))
    assert ds.n_groups == 4
    assert ds.privileged == "White & Male"
    assert sum(group_counts(ds).values()) == 45_222


def test_adult_include_sensitive_features() -> None:
    ds = load_adult(include_sensitive_features=True)
    assert ds.feature_groups["sex"] == ["sex=Female", "sex=Male"]
    assert len(ds.feature_groups["race"]) == 5
    assert np.array_equal(ds.X["sex=Male"].to_numpy(), (ds.sensitive["sex"] == "Male").to_numpy())


def test_adult_datasift_authors_encoding() -> None:
    ds = load_adult(encoding="datasift-authors")
    names = ["age", "workclass", "education", "marital-status", "relationship", "race"]
    assert ds.feature_names == [*names, "sex", "hours-per-week"]
    assert all(cols == [name] for name, cols in ds.feature_groups.items())
    raw = load_adult(include_sensitive_features=True)
    assert np.array_equal(ds.y, raw.y)
    assert np.array_equal(ds.X["sex"], raw.X["sex=Male"])
    assert np.array_equal(
        ds.X["relationship"], raw.X["relationship=Husband"] + raw.X["relationship=Wife"]
    )
    assert ds.X["education"].max() == 15
    assert ds.X["workclass"].max() == 7
    assert set(np.unique(ds.X["marital-status"])) == {0, 1, 2}
    assert ds.X["age"].mean() == pytest.approx((raw.X["age"] >= 45).mean())
    assert ds.metadata["encoding"] == "datasift-authors"
    no_sens = load_adult(encoding="datasift-authors", include_sensitive_features=False)
    assert no_sens.feature_names == [*names[:-1], "hours-per-week"]
    # "?" levels get -1 when rows with a missing value are kept
    assert load_adult(encoding="datasift-authors", drop_missing=False).X["workclass"].min() == -1
    with pytest.raises(InvalidParameterError, match="'encoding' parameter of load_adult"):
        load_adult(encoding="ordinal")  # type: ignore[arg-type]


def test_adult_returns_fresh_datasets() -> None:
    first, second = load_adult(), load_adult(sensitive="race")
    assert first is not second
    assert first.feature_names == second.feature_names
    assert np.array_equal(first.y, second.y)
    assert first.sensitive_attrs != second.sensitive_attrs


def test_adult_rejects_bad_arguments() -> None:
    with pytest.raises(InvalidParameterError, match="'split' parameter of load_adult"):
        load_adult(split="dev")  # type: ignore[arg-type]
    with pytest.raises(UnknownNameError, match="Did you mean 'race'"):
        load_adult(sensitive="rac")
    with pytest.raises(InvalidParameterError, match="distinct sensitive attributes"):
        load_adult(sensitive=("sex", "sex"))


# -- COMPAS -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("filter_", "race_groups", "rows", "aa"),
    [
        (None, "aa_vs_rest", 7_214, 3_696),
        ("propublica", "aa_vs_rest", 6_172, 3_175),
        ("propublica", "aa_vs_caucasian", 5_278, 3_175),
        (None, "aa_vs_caucasian", 6_150, 3_696),
    ],
)
def test_compas_counts(filter_: str | None, race_groups: str, rows: int, aa: int) -> None:
    ds = load_compas(filter=filter_, race_groups=race_groups)  # type: ignore[arg-type]
    assert len(ds) == rows
    assert group_counts(ds)["African-American"] == aa
    assert ds.n_groups == 2
    check_common(ds, sensitive_sources=["race", "sex"])


def test_compas_paper_004_setup() -> None:
    ds = load_compas(filter=None, race_groups="aa_vs_rest")
    assert int(ds.y.sum()) == 3_251  # two_year_recid == 1: re-offended
    assert ds.metadata["favourable_label"] == 0
    assert ds.privileged == "non-African-American"
    assert ds.sensitive["race_detail"].nunique() == 6
    assert ds.feature_groups["length_of_stay"] == ["length_of_stay", "length_of_stay_missing"]
    assert int(ds.X["length_of_stay_missing"].sum()) == 307
    assert (ds.X["length_of_stay"] >= 0).all()
    assert ds.with_sensitive("sex", privileged="Female").group_names == ("Female", "Male")


def test_compas_default_is_aa_vs_caucasian_with_filter() -> None:
    ds = load_compas()
    assert group_counts(ds) == {"African-American": 3_175, "Caucasian": 2_103}
    assert ds.privileged == "Caucasian"
    assert load_compas(sensitive="sex").privileged == "Female"


def test_compas_optional_columns() -> None:
    ds = load_compas(include_scores=True, include_sensitive_features=True)
    assert "decile_score" in ds.feature_names
    assert ds.feature_groups["score_text"] == [
        "score_text=High",
        "score_text=Low",
        "score_text=Medium",
    ]
    assert "sex" in ds.feature_groups
    assert "race" in ds.feature_groups
    plain = load_compas()
    assert "decile_score" not in plain.feature_names
    with pytest.raises(InvalidParameterError, match="race_groups"):
        load_compas(race_groups="aa_vs_white")  # type: ignore[arg-type]
    with pytest.raises(InvalidParameterError, match="'filter'"):
        load_compas(filter="strict")  # type: ignore[arg-type]


# -- German and Bank Marketing ----------------------------------------------------------------


def test_german_counts_and_conventions() -> None:
    ds = load_german()
    assert len(ds) == 1_000
    assert int(ds.y.sum()) == 700
    assert group_counts(ds) == {"female": 310, "male": 690}
    assert ds.privileged == "male"
    check_common(ds, sensitive_sources=["personal_status_sex", "age"])
    by_age = load_german(sensitive="age")
    assert group_counts(by_age) == {"age < 25": 149, "age >= 25": 851}
    assert by_age.privileged == "age >= 25"
    full = load_german(include_sensitive_features=True)
    assert "age" in full.feature_names
    assert "personal_status_sex" in full.feature_groups


def test_bank_marketing_counts_and_job_groups() -> None:
    ds = load_bank_marketing()
    assert len(ds) == 45_211
    assert int(ds.y.sum()) == 5_289
    assert ds.n_groups == 12  # paper 003 keeps every job value
    assert group_counts(ds)["unknown"] == 288
    assert group_counts(ds)["blue-collar"] == 9_732
    assert ds.privileged is None
    check_common(ds, sensitive_sources=["job", "age"])
    by_age = load_bank_marketing(sensitive="age")
    assert by_age.privileged == "age >= 25"
    assert group_counts(by_age) == {"age < 25": 809, "age >= 25": 44_402}


# -- one-hot encoding -------------------------------------------------------------------------


def test_one_hot_encode_errors() -> None:
    frame = pd.DataFrame({"a": ["x", "y"], "b": ["u", "v"]})
    with pytest.raises(InvalidDataError, match="'c' is not in the frame"):
        one_hot_encode(frame, ["c"])
    with pytest.raises(InvalidDataError, match="'b' is not numeric"):
        one_hot_encode(frame, ["a"])
    with pytest.raises(InvalidDataError, match="missing values"):
        one_hot_encode(pd.DataFrame({"a": ["x", None]}), ["a"])
    with pytest.raises(InvalidDataError, match="outside its categories"):
        one_hot_encode(frame, ["a", "b"], categories={"a": ["x"]})


def test_one_hot_encode_fixed_categories() -> None:
    frame = pd.DataFrame({"a": ["y", "y"]})
    X, groups = one_hot_encode(frame, ["a"], categories={"a": ["x", "y", "z"]})
    assert groups == {"a": ["a=x", "a=y", "a=z"]}
    assert X.to_numpy().tolist() == [[0.0, 1.0, 0.0], [0.0, 1.0, 0.0]]


@settings(max_examples=40, deadline=None)
@given(
    cats=st.lists(st.sampled_from(["a", "b", "c", "d"]), min_size=1, max_size=30),
    nums=st.data(),
)
def test_one_hot_encode_properties(cats: list[str], nums: st.DataObject) -> None:
    values = nums.draw(
        st.lists(st.floats(-1e6, 1e6), min_size=len(cats), max_size=len(cats)), label="num"
    )
    frame = pd.DataFrame({"num": values, "cat": cats})
    X, groups = one_hot_encode(frame, ["cat"])
    assert list(groups) == ["num", "cat"]
    assert len(groups["cat"]) == len(set(cats))
    block = X[groups["cat"]].to_numpy()
    assert np.array_equal(block.sum(axis=1), np.ones(len(cats)))  # exactly one hot per row
    decoded = [groups["cat"][i].split("=", 1)[1] for i in block.argmax(axis=1)]
    assert decoded == cats
    assert X["num"].tolist() == values
    permuted, _ = one_hot_encode(frame.iloc[::-1], ["cat"])
    assert list(permuted.columns) == list(X.columns)  # column order ignores row order


# -- local data directory: fixtures -----------------------------------------------------------


def test_give_me_some_credit_fixture_imputes_missing_values() -> None:
    ds = load_give_me_some_credit(data_dir=FIXTURES)
    assert len(ds) == 8
    assert group_counts(ds) == {"age < 35": 4, "age >= 35": 4}
    assert ds.privileged == "age >= 35"
    X = ds.X
    assert X["MonthlyIncome_missing"].tolist() == [0, 1, 0, 0, 1, 0, 0, 0]
    assert X["MonthlyIncome"].iloc[1] == 4000.0  # median of 1000, 3000, 5000, 7000, 2000, 9000
    assert X["NumberOfDependents"].iloc[2] == 0.5  # median of 0, 2, 1, 0, 3, 0
    assert ds.feature_groups["NumberOfDependents"] == [
        "NumberOfDependents",
        "NumberOfDependents_missing",
    ]
    assert ds.metadata["favourable_label"] == 0
    check_common(ds, sensitive_sources=["age"])
    with_age = load_give_me_some_credit(data_dir=FIXTURES, include_sensitive_features=True)
    assert with_age.X["age"].tolist() == [22, 45, 31, 60, 34, 35, 28, 70]


def test_movielens_fixture() -> None:
    raw = load_movielens_100k(data_dir=FIXTURES)
    assert isinstance(raw, MovieLens100k)
    assert raw.ratings.shape == (8, 4)
    assert raw.users.shape == (4, 5)
    assert len(raw.genres) == 19
    assert raw.items.shape == (3, 24)
    assert raw.items["title"].iloc[1] == "Crème Brûlée (1997)"  # Latin-1 decoded
    assert raw.users["zip_code"].iloc[3] == "01002"  # kept as a string
    raw.ratings.loc[0, "rating"] = 1  # a copy: the cache is not touched
    assert load_movielens_100k(data_dir=FIXTURES).ratings.loc[0, "rating"] == 5
    ds = load_movielens_ratings(data_dir=FIXTURES)
    assert ds.y.tolist() == [1, 0, 1, 0, 1, 0, 0, 1]
    assert group_counts(ds) == {"F": 4, "M": 4}
    assert len(ds.feature_groups["genres"]) == 19
    assert ds.X["release_year"].iloc[3] == 1996.0  # unknown date -> median of 1995, 1997
    check_common(ds, sensitive_sources=["gender"])
    assert load_movielens_ratings(data_dir=FIXTURES, threshold=5).y.sum() == 2
    with pytest.raises(InvalidParameterError, match="threshold"):
        load_movielens_ratings(data_dir=FIXTURES, threshold=6)


@pytest.mark.parametrize(
    ("loader", "relpath", "fix"),
    [
        (load_give_me_some_credit, "give-me-some-credit/cs-training.csv.gz", "kaggle.com"),
        (load_taiwan_credit, "uci-credit-card-default/raw/UCI_Credit_Card.csv.gz", "Excel"),
        (load_movielens_ratings, "movielens-100k/u.data.gz", "fairacq datasets fetch"),
        (load_movielens_100k, "movielens-100k/u.data.gz", "movielens-100k"),
        (load_acs, "acs/2018/1-Year/psam_p56.csv.gz", "fairacq datasets fetch acs-income"),
    ],
)
def test_missing_local_file_message(
    loader: object, relpath: str, fix: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FAIRACQ_DATA", str(tmp_path))
    monkeypatch.setenv("FAIRACQ_CACHE", str(tmp_path / "cache"))
    with pytest.raises(DatasetNotFoundError) as info:
        loader()  # type: ignore[operator]
    message = str(info.value)
    assert isinstance(info.value, FileNotFoundError)
    assert relpath in message
    assert str(tmp_path) in message
    assert fix in message
    assert "FAIRACQ_DATA" in message


# -- local data directory: the shared copies --------------------------------------------------


@pytest.mark.needs_data("give-me-some-credit")
def test_give_me_some_credit_shared(shared_data: Path) -> None:
    ds = load_give_me_some_credit()
    assert len(ds) == 150_000
    assert int(ds.y.sum()) == 10_026
    assert group_counts(ds) == {"age < 35": 19_240, "age >= 35": 130_760}  # 12.8 %, Table 1
    assert int(ds.X["MonthlyIncome_missing"].sum()) == 29_731
    assert int(ds.X["NumberOfDependents_missing"].sum()) == 3_924
    check_common(ds, sensitive_sources=["age"])


@pytest.mark.needs_data("uci-credit-card-default")
def test_taiwan_credit_shared(shared_data: Path) -> None:
    ds = load_taiwan_credit()
    assert len(ds) == 30_000
    assert int(ds.y.sum()) == 6_636
    assert group_counts(ds) == {"female": 18_112, "male": 11_888}
    assert ds.privileged == "male"
    assert ds.X.shape[1] == 19
    check_common(ds, sensitive_sources=["SEX", "AGE", "MARRIAGE", "EDUCATION"])
    by_education = load_taiwan_credit(sensitive="education")
    assert by_education.n_groups == 5
    assert by_education.privileged is None


@pytest.mark.needs_data("movielens-100k")
def test_movielens_shared(shared_data: Path) -> None:
    raw = load_movielens_100k()
    assert raw.ratings.shape == (100_000, 4)
    assert raw.users.shape == (943, 5)
    assert raw.items.shape == (1_682, 24)
    assert raw.users["gender"].value_counts().to_dict() == {"M": 670, "F": 273}
    ds = load_movielens_ratings()
    assert len(ds) == 100_000
    assert int(ds.y.sum()) == int((raw.ratings["rating"] >= 4).sum())
    assert ds.privileged == "M"
    check_common(ds, sensitive_sources=["gender"])


@needs_wyoming
@pytest.mark.parametrize(
    ("task", "rows", "positive_rate", "groups"),
    [
        ("ACSIncome", 3_064, 0.358, ("Female", "Male")),
        ("ACSPublicCoverage", 1_896, 0.178, ("Female", "Male")),
        ("ACSMobility", 1_018, 0.647, ("African-American", "non-African-American")),
        ("ACSEmployment", 5_740, 0.465, ("African-American", "non-African-American")),
    ],
)
def test_acs_wyoming(
    shared_data: Path, task: str, rows: int, positive_rate: float, groups: tuple[str, str]
) -> None:
    ds = load_acs(task)  # type: ignore[arg-type]
    assert len(ds) == rows
    assert ds.y.mean() == pytest.approx(positive_rate, abs=5e-4)
    assert ds.group_names == groups
    assert ds.metadata["states"] == ["WY"]
    check_common(ds, sensitive_sources=["SEX", "RAC1P"])


@needs_wyoming
def test_acs_options(shared_data: Path) -> None:
    codes = load_acs("ACSIncome", one_hot=False, sensitive="race")
    assert codes.X.shape[1] == 8  # folktables' 10 features minus SEX and RAC1P
    assert codes.privileged == "White"
    assert codes.n_groups >= 5
    full = load_acs("ACSIncome", include_sensitive_features=True)
    assert full.feature_groups["SEX"] == ["SEX=1", "SEX=2"]
    with pytest.raises(UnknownNameError, match="Did you mean 'ACSIncome'"):
        load_acs("ACSIncom")  # type: ignore[arg-type]
    with pytest.raises(UnknownNameError, match="US state"):
        load_acs("ACSIncome", states=("XX",))
    with pytest.raises(InvalidParameterError, match="at least one state"):
        load_acs("ACSIncome", states=())


@pytest.mark.needs_data(ACS_WY, "acs/2018/1-Year/psam_p50.csv.gz")
def test_acs_state_column_follows_the_row_filter(shared_data: Path) -> None:
    both = load_acs("ACSIncome", states=("WY", "VT"))
    wy, vt = load_acs("ACSIncome", states=("WY",)), load_acs("ACSIncome", states=("VT",))
    assert both.sensitive["ST"].value_counts().to_dict() == {"WY": len(wy), "VT": len(vt)}
    rows = (both.sensitive["ST"] == "WY").to_numpy()
    np.testing.assert_array_equal(both.y[rows], wy.y)
    assert "ST" not in both.X.columns  # a grouping column, never a model feature


@needs_wyoming
def test_acs_missing_folktables(shared_data: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def missing(module: str, *, purpose: str = "") -> object:
        raise MissingDependencyError(f"The optional dependency '{module}' is needed.")

    monkeypatch.setattr(acs_module, "require", missing)
    with pytest.raises(MissingDependencyError, match="folktables"):
        load_acs("ACSIncome")
