"""The loop every acquisition method shares.

The state between rounds (``_state.py``), the cost ledger (``_ledger.py``), the
:class:`Acquirer` base (``_acquirer.py``), the round-by-round loop that refits the model and
records the trace (``_acquisition_loop.py``; ``_paid_loop.py`` for methods that pay for every
row they query), the exact cheaper refit of the default model (``_exact_refit.py``, its
solver driven by ``_lbfgs.py``) and the growing arrays of rows (``_growing.py``). The loop
knows no method; every public name is exported from :mod:`fairacq.acquisition`, so nothing
is exported here.
"""

from __future__ import annotations

__all__: list[str] = []
