"""Numbers the papers report, each cited, for the summaries to put beside ours."""

from __future__ import annotations

__all__ = ["DATASIFT_TABLE2", "DATASIFT_TABLE2_METHODS", "table2_accuracy"]

#: Paper 000 (Hasan & Pradhan), Table 2: test accuracy of the model after acquisition.
#: Columns map to fairacq method names (MAB = DataSift, MAB_INF = DataSift-Inf).
DATASIFT_TABLE2_METHODS: tuple[str, ...] = (
    "initial",
    "random",
    "entropy",
    "autodata",
    "datasift",
    "inf",
    "datasift-inf",
)
DATASIFT_TABLE2: dict[tuple[str, str], tuple[float, ...]] = {
    ("adult", "lr"): (0.73, 0.79, 0.78, 0.73, 0.76, 0.75, 0.77),
    ("adult", "linear_svm"): (0.72, 0.79, 0.78, 0.73, 0.76, 0.76, 0.77),
    ("adult", "mlp"): (0.75, 0.81, 0.79, 0.79, 0.76, 0.73, 0.77),
    ("acs-income", "lr"): (0.77, 0.78, 0.78, 0.77, 0.74, 0.56, 0.75),
    ("acs-income", "linear_svm"): (0.77, 0.78, 0.78, 0.78, 0.74, 0.59, 0.77),
    ("acs-income", "mlp"): (0.77, 0.79, 0.79, 0.75, 0.75, 0.54, 0.74),
    ("acs-employment", "lr"): (0.69, 0.75, 0.75, 0.73, 0.76, 0.72, 0.73),
    ("acs-employment", "linear_svm"): (0.69, 0.74, 0.75, 0.76, 0.76, 0.65, 0.73),
    ("acs-employment", "mlp"): (0.80, 0.78, 0.80, 0.79, 0.80, 0.72, 0.78),
    ("acs-public-coverage", "lr"): (0.65, 0.69, 0.68, 0.68, 0.68, 0.47, 0.68),
    ("acs-public-coverage", "linear_svm"): (0.63, 0.68, 0.68, 0.69, 0.69, 0.49, 0.55),
    ("acs-public-coverage", "mlp"): (0.69, 0.70, 0.71, 0.67, 0.65, 0.48, 0.68),
    ("acs-mobility", "lr"): (0.77, 0.77, 0.77, 0.77, 0.77, 0.39, 0.70),
    ("acs-mobility", "linear_svm"): (0.77, 0.76, 0.77, 0.77, 0.77, 0.75, 0.76),
    ("acs-mobility", "mlp"): (0.77, 0.77, 0.77, 0.77, 0.77, 0.69, 0.74),
    ("give-me-some-credit", "lr"): (0.73, 0.93, 0.93, 0.93, 0.93, 0.72, 0.91),
    ("give-me-some-credit", "linear_svm"): (0.73, 0.93, 0.93, 0.93, 0.93, 0.88, 0.84),
    ("give-me-some-credit", "mlp"): (0.93, 0.93, 0.93, 0.93, 0.93, 0.93, 0.93),
}


def table2_accuracy(dataset: str, learner: str, method: str) -> float | None:
    """Paper 000 Table 2's accuracy for ``(dataset, learner, method)``, or None."""
    row = DATASIFT_TABLE2.get((dataset, learner))
    if row is None or method not in DATASIFT_TABLE2_METHODS:
        return None
    return row[DATASIFT_TABLE2_METHODS.index(method)]
