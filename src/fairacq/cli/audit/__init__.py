"""``fairacq audit``: the fairness of a data set or of a model's predictions.

The command and its report (``_audit.py``) and the audit of predictions a user's model makes
(``_audit_predictions.py``). The application is :data:`fairacq.cli.app`, so nothing is
exported here.
"""

from __future__ import annotations

__all__: list[str] = []
