"""``fairacq sample``: how many rows of each group to collect.

The command and its options (``_sample.py``) and the report it prints and writes
(``_sample_report.py``). The application is :data:`fairacq.cli.app`, so nothing is exported
here.
"""

from __future__ import annotations

__all__: list[str] = []
