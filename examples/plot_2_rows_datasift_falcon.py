"""
Rows: which rows to acquire (DataSift, Falcon)
==============================================

The bundled COMPAS data, split as Hasan & Pradhan do: a small, biased set of rows you have, a
validation and a test part, and a large pool of candidates whose labels you can buy.
DataSift-Inf and Falcon choose pool rows to close the demographic parity gap; Random, with the
same budget, is the reference.
"""

# %%
import matplotlib.pyplot as plt

from fairacq.acquisition import DataSiftInfAcquirer, acquire
from fairacq.data import load_dataset, split_datasift

compas = load_dataset("compas")
split = split_datasift(compas, random_state=0)
print(compas)
print(len(split.train), "rows to start from,", len(split.pool), "in the pool")

# %%
# DataSift-Inf as an estimator: ``fit`` returns the acquirer, whose ``trace_`` is the
# :class:`fairacq.Trace` of the run; the other fitted attributes say why it stopped and
# which pool rows it took, in order.
datasift = DataSiftInfAcquirer(budget=200, batch_size=40, tau=0.02, random_state=0)
datasift.fit(split.train, split.pool, validation=split.validation, test=split.test)
trace = datasift.trace_
print(
    "stopped because of:",
    datasift.stop_reason_,
    "| first pool rows bought:",
    datasift.acquired_[:10],
)

# %%
# The same through the functional form, for Falcon and Random.
runs = {"datasift-inf": trace}
for method in ("falcon", "random"):
    runs[method] = acquire(
        split.train,
        split.pool,
        validation=split.validation,
        test=split.test,
        method=method,
        budget=200,
        batch_size=40,
        random_state=0,
    )

fig, (gap, acc) = plt.subplots(1, 2, figsize=(9, 3.5))
for method, run in runs.items():
    frame = run.to_frame()
    gap.plot(frame["cost"], frame["test_demographic_parity_diff_abs"], marker="o", label=method)
    acc.plot(frame["cost"], frame["test_accuracy"], marker="o", label=method)
gap.set(xlabel="rows acquired", ylabel="demographic parity gap (test)")
acc.set(xlabel="rows acquired", ylabel="accuracy (test)")
gap.legend()
fig.tight_layout()

# %%
# Read both panels before acting: a method that closes the gap fastest may do it by giving
# up accuracy (here DataSift-Inf on a small budget). ``fairacq compare`` weighs the gap,
# the accuracy lost and the cost over several seeds, and says how sure it is.
