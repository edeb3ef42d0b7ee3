"""``fairacq acquire``: which rows to buy next.

The command and its options (``_acquire.py``), the inputs it reads and checks
(``_acquire_inputs.py``), resuming a stopped run (``_acquire_resume.py``), the run and its
checkpoints (``_acquire_run.py``), and the warnings and words of its report
(``_acquire_warnings.py``, ``_acquire_words.py``). The application is
:data:`fairacq.cli.app`, so nothing is exported here.
"""

from __future__ import annotations

__all__: list[str] = []
