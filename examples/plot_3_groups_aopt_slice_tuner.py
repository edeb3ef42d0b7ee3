"""
Groups: how many samples from each group (Aopt, Slice Tuner)
============================================================

When you can draw new labelled samples from a chosen group (a survey per population, a data
vendor per region), the question is how to split the budget. Aopt (Shekhar et al.) draws
where the worst-off group's risk falls fastest; Slice Tuner fits a learning curve per group;
Uniform splits the budget evenly. The bundled COMPAS data by race and sex gives four groups.
"""

# %%
import matplotlib.pyplot as plt
import numpy as np

from fairacq.data import load_dataset
from fairacq.sampling import run_sampler_trials

groups = load_dataset("compas").with_sensitive("race", "sex")
print(groups.group_names, groups.group_sizes())

# %%
# Each method runs two trials with the same seeds (paired), budget 120 samples.
runs = {
    method: run_sampler_trials(groups, method, n_trials=2, budget=120, random_state=0)
    for method in ("aopt", "slice-tuner", "uniform")
}

fig, (worst, share) = plt.subplots(1, 2, figsize=(10, 3.5))
width = 0.8 / len(runs)
for k, (method, traces) in enumerate(runs.items()):
    frames = [t.to_frame() for t in traces]
    for i, frame in enumerate(frames):
        worst.plot(
            frame["cost"], frame["test_worst_acc"], color=f"C{k}", label=method if i == 0 else None
        )
    counts = np.mean([f[[f"n_{g}" for g in groups.group_names]].iloc[-1] for f in frames], 0)
    share.bar(np.arange(groups.n_groups) + k * width, counts, width, label=method)
worst.set(xlabel="samples drawn", ylabel="worst-group accuracy (test)")
share.set_xticks(np.arange(groups.n_groups) + width, groups.group_names, rotation=20)
share.set_ylabel("samples per group (mean of trials)")
worst.legend()
fig.tight_layout()
