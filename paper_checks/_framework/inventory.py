"""The claim inventory: every claim a careful reading finds in each paper.

``paper_checks/inventory/<paper>.json`` lists, per paper, every checkable
statement with its location and the ids of the registered claims that check
it (one or more). A topic may keep its part in ``<paper>_<topic>.json``
beside it (one file per topic, like the claim modules ``<paper>/<topic>.py``); the inventory of a
paper is all of its files together. A statement the toolkit cannot check still gets a claim,
whose computed verdict is ``not checkable`` with the reason. The report shows
per paper how many statements the inventory holds and how many are checked;
``tests/test_judges.py`` holds the inventory and the registry in step.

Each file is a JSON list of objects::

    {"where": "Section IV-A, Remark 3", "statement": "...", "claims": ["remark3-threshold-3-6"]}
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

INVENTORY_DIR = Path(__file__).parent.parent / "inventory"

__all__ = ["INVENTORY_DIR", "InventoryEntry", "load_inventory"]


@dataclass(frozen=True)
class InventoryEntry:
    """One statement of a paper and the claim ids that check it."""

    paper: str
    where: str
    statement: str
    claims: tuple[str, ...]


def load_inventory(paper: str, directory: Path | None = None) -> list[InventoryEntry]:
    """The inventory of ``paper``: ``<paper>.json`` and every ``<paper>_<topic>.json``.

    Empty when the paper has no file.
    """
    folder = directory or INVENTORY_DIR
    paths = sorted(folder.glob(f"{paper}.json")) + sorted(folder.glob(f"{paper}_*.json"))
    out = []
    for path in paths:
        out += _load_file(paper, path)
    return out


def _load_file(paper: str, path: Path) -> list[InventoryEntry]:
    try:
        data = json.loads(path.read_text())
    except json.JSONDecodeError as exc:
        raise ValueError(f"inventory {path}: not valid JSON ({exc})") from None
    if not isinstance(data, list):
        raise ValueError(f"inventory {path}: must be a JSON list of entries")
    out = []
    for i, e in enumerate(data):
        if not isinstance(e, dict) or not {"where", "statement", "claims"} <= set(e):
            raise ValueError(
                f"inventory {path}, entry {i}: needs the fields where, statement, claims"
            )
        claims = e["claims"]
        if (
            not isinstance(claims, list)
            or not claims
            or not all(isinstance(c, str) for c in claims)
        ):
            raise ValueError(
                f"inventory {path}, entry {i}: claims must be a non-empty list of claim ids"
            )
        out.append(InventoryEntry(paper, str(e["where"]), str(e["statement"]), tuple(claims)))
    return out
