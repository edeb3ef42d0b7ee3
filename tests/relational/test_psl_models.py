"""The hand-written PSL models of paper 004 (Sensitive-PSL, Fair-PSL, HyPER)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from fairacq.data.synthetic import make_paper_review
from fairacq.exceptions import UnknownNameError
from fairacq.relational import (
    PSL_MODELS,
    Database,
    RelationalData,
    ground,
    make_psl_model,
    paper_review_data,
    parse_fairness,
)


def test_every_model_parses_with_weight_five_and_squared_hinges():
    for name, model in PSL_MODELS.items():
        assert model.name == name
        rules = model.parse()
        assert rules, name
        assert all(r.weight == 5.0 and r.squared for r in rules), name
        assert model.rule_lines() == [r.text for r in rules]
        for spec in model.fairness:
            parse_fairness(spec)


def test_sensitive_models_use_the_sensitive_attribute_and_fair_ones_do_not():
    pairs = [
        ("paper-review-sensitive", "paper-review-fair", "highRank"),
        ("compas-sensitive", "compas-fair", "african_race"),
    ]
    for sensitive, fair, attribute in pairs:
        s_preds = {p for r in make_psl_model(sensitive).parse() for p in r.predicates()}
        f_preds = {p for r in make_psl_model(fair).parse() for p in r.predicates()}
        assert attribute in s_preds
        assert attribute not in f_preds
        assert make_psl_model(sensitive).fairness == ()
        assert make_psl_model(fair).fairness == ("rd<=0.1",)
        assert len(make_psl_model(sensitive).parse()) == len(make_psl_model(fair).parse()) + 1
    assert make_psl_model("movielens-fair").fairness == ("nonparity<=0.001",)


def test_unknown_model_suggests_the_closest_name():
    with pytest.raises(UnknownNameError, match="Did you mean 'compas-fair'"):
        make_psl_model("compas-fiar")


def test_paper_review_models_ground_on_generated_data():
    data = paper_review_data(make_paper_review(random_state=0))
    db = Database.from_data(data)
    for name in ("paper-review-sensitive", "paper-review-fair"):
        model = ground(make_psl_model(name).parse(), db)
        assert model.n_rules == len(make_psl_model(name).parse())
        # every rule has groundings; targets: 200 reviews + 100 summaries
        counts = np.bincount(model.potentials.rule_index, minlength=model.n_rules)
        assert (counts > 0).all(), (name, counts)
        assert model.n_variables == 300


def _tiny_movielens() -> RelationalData:
    users = ["u0", "u1", "u2", "u3"]
    items = ["i0", "i1", "i2"]
    obs_pairs = [("u0", "i0"), ("u0", "i1"), ("u1", "i0"), ("u1", "i2"), ("u2", "i1")]
    tgt_pairs = [("u2", "i0"), ("u3", "i1"), ("u3", "i2")]
    obs = pd.DataFrame(obs_pairs, columns=["user", "item"]).assign(value=[0.8, 0.6, 0.4, 1.0, 0.6])
    tgt = pd.DataFrame(tgt_pairs, columns=["user", "item"])
    both = pd.concat([obs[["user", "item"]], tgt], ignore_index=True)
    observations = {
        "rating": obs,
        "ratingMF": both.assign(value=0.7),
        "reviews": both.assign(value=1.0),
        "avgUserRating": pd.DataFrame({"user": users, "value": [0.7, 0.7, 0.6, 0.7]}),
        "avgItemRating": pd.DataFrame({"item": items, "value": [0.6, 0.6, 1.0]}),
        "userPearsonSim": pd.DataFrame({"user": ["u2"], "user2": ["u1"], "value": [0.9]}),
        "itemPearsonSim": pd.DataFrame({"item": ["i1"], "item2": ["i0"], "value": [0.5]}),
        "female": pd.DataFrame({"user": users, "value": [1.0, 0.0, 1.0, 0.0]}),
    }
    return RelationalData(
        observations=observations,
        targets={"rating": tgt},
        truth={"rating": tgt.assign(value=[0.6, 0.8, 0.4])},
        protected=tgt.iloc[:1].reset_index(drop=True),
        unprotected=tgt.iloc[1:].reset_index(drop=True),
        metadata={"fairness_predicate": "rating", "task": "rating"},
    )


def test_movielens_model_grounds_only_on_target_ratings():
    data = _tiny_movielens()
    model = ground(make_psl_model("movielens-hyper").parse(), Database.from_data(data))
    assert model.n_variables == 3
    counts = np.bincount(model.potentials.rule_index, minlength=model.n_rules)
    # MF and the averages: one potential per target and rule, except rating(u3, i2) <=
    # avgItemRating(i2) = 1.0, which can never be violated and is dropped
    assert counts[:6].tolist() == [3, 3, 3, 3, 3, 2]
    # u2 rates i0; its neighbour u1 rated i0 (0.4): one grounding of the user-similarity rules
    assert counts[6] == 1
    assert counts[7] == 1
