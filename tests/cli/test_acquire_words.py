"""The words ``fairacq acquire`` prints about what it paid for and why it stopped."""

from __future__ import annotations

import pandas as pd
import pytest

from fairacq.cli.acquire._acquire_words import spending, spending_counts, stop_words


def _paid(paid, trained, seen=None, evaluated=None, cost=None):
    rows = pd.DataFrame(
        {"trained_on": [True] * trained + [False] * (paid - trained),
         "cost_paid": [1.0] * paid if cost is None else cost}
    )  # fmt: skip
    counts = {"labels_seen": seen or paid, "rows_evaluated": evaluated or trained}
    return spending_counts(rows, counts)


def test_counts_add_up():
    paid = _paid(5, 3, seen=9, evaluated=7, cost=[1.0, 2.0, 0.5, 0.25, 4.0])
    assert paid == {
        "rows_paid": 5, "cost_paid": 7.75, "rows_trained_on": 3, "rows_set_aside": 2,
        "labels_seen": 9, "rows_evaluated": 7,
    }  # fmt: skip


def test_falcon_words():
    text = spending(_paid(405, 239), cost_name="fee", postpones=True)
    assert text.startswith("Paid for 405 rows (405.00 in fee); trained on 239 of them; the ")
    assert "other 166 were paid for and their labels read, then set aside" in text
    assert "handed back" not in text
    assert "did not pay for" not in text


def test_kept_batches_only_paid():
    text = spending(_paid(274, 274, seen=1500, evaluated=1500), cost_name=None, postpones=False)
    assert text.startswith("Paid for 274 rows and trained on all of them.")
    assert "Batches that did not make the model fairer were handed back unpaid." in text
    assert "read the labels of 1,226 rows it did not pay for" in text
    assert text.endswith("(--cost-model evaluated pays for every row tried).")


def test_every_row_tried_is_paid():
    paid = _paid(399, 202, seen=1500, evaluated=450)
    text = spending(paid, cost_name="fee", postpones=False, cost_model="evaluated")
    assert "the other 197 were paid for and tried, then set aside because the batch" in text
    assert "handed back" not in text
    assert text.endswith("This takes the pool's labels as known in advance.")


def test_nothing_paid():
    assert spending(_paid(0, 0), cost_name="fee", postpones=False) == "Paid for no row."


@pytest.mark.parametrize(
    ("reason", "fragment"),
    [("tau", "fairness tolerance (--tau)"), ("max_evaluations", "as many batches"),
     ("exhausted", "no pool row"), ("other", "other")],
)  # fmt: skip
def test_stop_words(reason, fragment):
    assert fragment in stop_words(reason)
