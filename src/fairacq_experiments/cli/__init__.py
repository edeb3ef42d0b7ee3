"""The harness's commands of the ``fairacq`` CLI: ``fairacq reproduce`` and ``fairacq demo``.

The library's CLI does not import this package: it finds these commands through the
``fairacq.commands`` entry points that ``pyproject.toml`` declares, and adds each at start-up.
"""

from fairacq_experiments.cli._demo import demo_cmd
from fairacq_experiments.cli._reproduce import reproduce_cmd

__all__ = ["demo_cmd", "reproduce_cmd"]
