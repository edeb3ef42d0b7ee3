"""Every factory a user calls refuses a misspelt keyword, naming the closest valid one."""

from __future__ import annotations

import pytest

from fairacq._validation import check_known_params
from fairacq.acquisition import make_acquirer, make_policy
from fairacq.data import load_dataset
from fairacq.exceptions import InvalidParameterError
from fairacq.filtering import make_proxy
from fairacq.models import make_learner
from fairacq.sampling import make_sampler


def test_check_known_params_names_closest_and_lists_all():
    check_known_params("f", ["alpha", "budget"], ["alpha", "budget", "tau"])  # all known
    with pytest.raises(InvalidParameterError) as err:
        check_known_params("f", ["budgte", "alpha"], ["alpha", "budget", "tau"])
    assert str(err.value) == (
        "f takes no parameter 'budgte'. Did you mean 'budget'? It takes: alpha, budget, tau."
    )


def test_check_known_params_without_a_close_name():
    with pytest.raises(InvalidParameterError, match=r"'zzz'\. It takes: alpha\.$"):
        check_known_params("f", {"zzz": 1}, ["alpha"])
    with pytest.raises(InvalidParameterError, match="It takes: none"):
        check_known_params("f", {"alpha": 1}, [])


@pytest.mark.parametrize(
    ("build", "wrong", "right"),
    [
        (lambda: make_acquirer("datasift", alhpa=0.5), "alhpa", "alpha"),
        (lambda: make_acquirer("datasift", alpha=0.5, budgte=10), "budgte", "budget"),
        (lambda: make_sampler("aopt", c00=0.2), "c00", "c0"),
        (lambda: make_policy("ucb", alhpa=0.3), "alhpa", "alpha"),
        (lambda: make_proxy("qp-tree", alhpa=0.3), "alhpa", "alpha"),
        (lambda: make_learner("lr", max_iters=5), "max_iters", "max_iter"),
        (lambda: make_learner("linear_svm", Cc=2.0), "Cc", "C"),
        (
            lambda: make_learner("sklearn.tree:DecisionTreeClassifier", max_dept=2),
            "max_dept",
            "max_depth",
        ),
        (lambda: load_dataset("german", sensitve="sex"), "sensitve", "sensitive"),
    ],
)
def test_factory_refuses_typo_naming_the_closest(build, wrong, right):
    with pytest.raises(InvalidParameterError) as err:
        build()
    text = str(err.value)
    assert f"no parameter '{wrong}'. Did you mean '{right}'?" in text
    assert "\n" not in text


def test_factories_still_take_their_parameters():
    assert make_acquirer("datasift", alpha=0.5, budget=10).get_params()["alpha"] == 0.5
    assert make_sampler("aopt", c0=0.2).c0 == 0.2
    assert make_proxy("alpha-beta", alpha=0.3).alpha == 0.3
    assert make_learner("lr", scale=False, max_iter=5).max_iter == 5
    svm = make_learner("linear_svm", scale=False, C=2.0)
    assert svm.estimator.C == 2.0


def test_a_parameter_of_another_method_is_refused():
    # alpha is DataSift's: Random must not take it silently
    with pytest.raises(InvalidParameterError, match="'random' takes no parameter 'alpha'"):
        make_acquirer("random", alpha=0.5)
    with pytest.raises(InvalidParameterError, match="'uniform' takes no parameter 'epsilon'"):
        make_sampler("uniform", epsilon=0.1)
