"""``python -m fairacq.cli``: the ``fairacq`` command."""

from fairacq.cli._app import main

main()
