"""
Compare: which strategy reaches the target at least cost
========================================================

:func:`fairacq.compare.compare_strategies` back-tests, on your own labelled rows, every way to
close a fairness gap: acquiring rows (DataSift-Inf, Falcon, Entropy, Random), or fixing the
model you have instead (fairlearn's ThresholdOptimizer, reweighing). It recommends the cheapest
one that reaches the target without losing more than two accuracy points. Here on the bundled
COMPAS data, with one seed and small budgets (a real decision needs more seeds).
"""

# %%
import matplotlib.pyplot as plt
import numpy as np

from fairacq.compare import compare_strategies
from fairacq.data import load_dataset
from fairacq.reporting import plot_tradeoff

compas = load_dataset("compas")
mine = compas.subset(np.random.default_rng(0).permutation(len(compas))[:1500])
result = compare_strategies(
    mine,
    "rows",
    budget="20%",
    target="dp<=0.05",
    n_seeds=1,
    methods=["random", "entropy", "datasift-inf", "falcon", "threshold-dp", "reweighing"],
)
print(result.recommendation.text)

# %%
# Each strategy's accuracy against its demographic parity gap on the test rows.
gap = "demographic_parity_diff_abs"
points = [
    {"label": row["method"], "x": row["accuracy"], "y": row[gap], "kind": row["kind"]}
    for row in result.to_frame().to_dict("records")
    if np.isfinite(row["accuracy"]) and np.isfinite(row[gap])
]
fig, ax = plt.subplots(figsize=(7, 4))
plot_tradeoff(points, ylabel="demographic parity gap (test)", target=0.05, ax=ax)
fig.tight_layout()

# %%
# In Jupyter the result shows itself: the recommendation, the figures and the table.
result
