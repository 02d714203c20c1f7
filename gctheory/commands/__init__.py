"""CLI subcommands contributed by the topic modules.

Each module here defines ``register(subparsers)``, which adds its subcommands
(``table1``, ``threshold``, ``orderstat`` ...) to the ``gctheory`` parser and
sets ``func`` on each to a callable ``func(args) -> int`` (the exit code).
:mod:`gctheory.cli` discovers the modules, so adding a command never edits
``cli.py``.
"""
