"""``python -m gctheory.cli``: the command line (as ``python -m gctheory``)."""

from __future__ import annotations

import sys

from gctheory.cli._entry import main

if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
