"""``python -m gctheory``: the same command line as the ``gctheory`` script."""

from gctheory.cli import main

if __name__ == "__main__":
    raise SystemExit(main())
