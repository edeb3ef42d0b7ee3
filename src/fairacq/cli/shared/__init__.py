"""What every command shares.

Errors and warnings turned into one line and an exit code (``_errors.py``), the data options
(``_data_options.py``) and a user's own model (``_user_model.py``), the ``--out`` folder
(``_out_folder.py``), the progress bar (``_progress.py``) and a clean stop on Ctrl+C
(``_shutdown.py``). The application is :data:`fairacq.cli.app`, so nothing is exported here.
"""

from __future__ import annotations

__all__: list[str] = []
