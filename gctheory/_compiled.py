"""The optional compiled backend (numba, the ``fast`` extra): whether it is there, and
the ``backend`` argument shared by the functions that have a compiled path.

Bottom of the package (no gctheory imports but :mod:`gctheory._validate`):
:mod:`gctheory.ldpc.peeling` (peeling decoder) and
:mod:`gctheory.codes._stacked_solve` (batched straggler solves) use it.
"""

from __future__ import annotations

import importlib.util

from gctheory._validate import check_choice

#: True when the optional ``fast`` extra (numba) is importable; numba itself is
#: imported lazily, by the first call that compiles a kernel.
HAVE_NUMBA = importlib.util.find_spec("numba") is not None

BACKENDS = ("auto", "numba", "numpy")


def resolve_backend(backend: str, *, numba_ok: bool = True) -> str:
    """``"numba"`` or ``"numpy"`` for ``backend`` in :data:`BACKENDS`.

    ``"auto"`` is numba when installed and ``numba_ok`` (the caller's size
    rule), else numpy. ``"numba"`` without numba is a ``ValueError`` saying how
    to install it.
    """
    check_choice(backend, "backend", BACKENDS)
    if backend == "auto":
        return "numba" if HAVE_NUMBA and numba_ok else "numpy"
    if backend == "numba" and not HAVE_NUMBA:
        raise ValueError("backend='numba' needs numba (pip install 'gctheory[fast]')")
    return backend
