"""
Your own data, every question
=============================

A table of your own, with your column names: an ID column, a date, a text column and a small
group. fairacq reads it once (:func:`fairacq.data.prepare_table`), then answers three
questions on it: which rows to acquire from a pool of candidates, how many samples to draw
from each group, and which strategy reaches a fairness target at least cost.
"""

# %%
# A table of your own
# -------------------
# 600 applicants from three districts; ``north`` is the small group. Past decisions turned
# down half the hires outside ``east``. The ID and the date are neither features nor roles,
# so they are dropped; the text column ``trade`` is one-hot encoded for you.
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from fairacq.acquisition import acquire
from fairacq.compare import compare_strategies
from fairacq.data import TableColumns, prepare_table
from fairacq.sampling import recommend_counts, run_sampler_trials

rng = np.random.default_rng(0)
n = 600
district = rng.choice(["east", "west", "north"], n, p=[0.6, 0.3, 0.1])
people = pd.DataFrame(
    {
        "applicant": [f"a{i:04d}" for i in range(n)],
        "applied_on": pd.Timestamp("2024-01-01") + pd.to_timedelta(rng.integers(0, 365, n), "D"),
        "district": district,
        "trade": rng.choice(["baker", "welder", "coder", "nurse"], n),
        "age": rng.integers(18, 70, n),
        "test": rng.normal(60, 12, n).round(),
    }
)
merit = (people.test - 60) / 8 + (people.age - 40) / 30 + (people.trade == "coder") * 0.5
hired = merit + rng.normal(0, 0.7, n) > 0
hired &= (district == "east") | (rng.random(n) < 0.5)
people["decision"] = np.where(hired, "hired", "rejected")
people.head()

# %%
columns = TableColumns(
    label="decision", positive="hired", sensitive=("district",), drop=("applicant", "applied_on")
)
table = prepare_table(people, columns, name="applicants")
data = table.dataset
print(data)
print(data.base_rates())

# %%
# Which rows should I acquire?
# ----------------------------
# Split the table into the rows you have, a validation and a test part, and a pool of
# candidates you could label. DataSift-Inf picks pool rows whose influence on the fairness gap
# is largest; Random with the same budget is the reference.
order = rng.permutation(n)
train, validation, test, pool = (
    data.subset(order[:90]),
    data.subset(order[90:180]),
    data.subset(order[180:300]),
    data.subset(order[300:]),
)
runs = {
    method: acquire(
        train,
        pool,
        validation=validation,
        test=test,
        method=method,
        budget=60,
        batch_size=20,
        random_state=0,
    )
    for method in ("datasift-inf", "random")
}
fig, ax = plt.subplots(figsize=(6, 3.5))
for method, trace in runs.items():
    frame = trace.to_frame()
    ax.plot(frame["cost"], frame["test_demographic_parity_diff_abs"], marker="o", label=method)
ax.set_xlabel("rows acquired")
ax.set_ylabel("demographic parity gap (test)")
ax.legend()
fig.tight_layout()

# %%
# How many samples from each group?
# ---------------------------------
# Aopt draws new labelled samples group by group, where the worst-off group's risk falls
# fastest. Over a few trials, its counts are summarised as a recommendation.
traces = run_sampler_trials(data, "aopt", n_trials=3, budget=60, random_state=0)
count_columns = [f"n_{name}" for name in data.group_names]
per_trial = np.array([t.to_frame()[count_columns].iloc[-1] for t in traces])
counts = recommend_counts(per_trial, budget=int(per_trial.sum(axis=1).max()))
print(dict(zip(data.group_names, counts.counts.tolist(), strict=True)))
fig, ax = plt.subplots(figsize=(5, 3))
ax.bar(data.group_names, counts.counts)
ax.set_ylabel("samples to draw (Aopt)")
fig.tight_layout()

# %%
# Which strategy reaches the target at least cost?
# ------------------------------------------------
# ``compare_strategies`` back-tests every acquisition method, Random, and fixing the model
# instead, on a pool simulated from your own rows.
result = compare_strategies(
    data,
    "rows",
    budget="25%",
    target="dp<=0.05",
    n_seeds=1,
    methods=["random", "entropy", "datasift-inf"],
)
print(result.recommendation.text)
result.to_frame()
