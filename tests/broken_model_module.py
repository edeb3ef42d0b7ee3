"""A module whose import fails: ``--model tests.broken_model_module:Model`` must be refused."""

raise RuntimeError("this module is broken on purpose")
