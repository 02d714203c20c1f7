"""Draw docs/_static/floors.png: the house's floors and a run's data on its path through them.

Run from the repository root: ``python docs/make_floors_figure.py``. The floors are read from
``tests/test_house.py`` (``FLOORS``, the list the import test enforces), so the figure cannot
drift from the rule; the path is the one docs/design.md describes.
"""

from __future__ import annotations

import ast
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]

#: the data's path: (room, what it does there), in order
PATH = (
    ("cluster", "RunSpec: the run's description"),
    ("cluster", "workers: an engine, or the simulated clock of training"),
    ("loop", "run_loop: broadcast, wait, decode, step"),
    ("cluster", "callbacks: metrics, checkpoint, progress"),
    ("cluster", "trace CSV + JSON sidecar (the spec)"),
    ("delays", "delays fit: laws of the measured rounds"),
    ("runtime", "scheme times"),
    ("tradeoff", "tradeoff / optimum"),
)


def floors() -> list[list[str]]:
    """``FLOORS`` of tests/test_house.py, read without importing the test."""
    tree = ast.parse((ROOT / "tests" / "test_house.py").read_text())
    for node in tree.body:
        if isinstance(node, ast.AnnAssign) and getattr(node.target, "id", "") == "FLOORS":
            return [list(row) for row in ast.literal_eval(node.value)]
    raise ValueError("tests/test_house.py has no FLOORS")


def draw(out: Path) -> Path:
    rows = floors()
    fig, ax = plt.subplots(figsize=(11, 6.5))
    where: dict[str, tuple[float, float]] = {}
    for level, rooms in enumerate(rows):
        private = [r for r in rooms if r.startswith("_") and not r.startswith("__")]
        shown = (["private helpers"] if private else []) + [r for r in rooms if r not in private]
        width = 7.0 / len(shown)
        for j, room in enumerate(shown):
            x = 0.2 + j * width
            ax.add_patch(plt.Rectangle((x, level), width - 0.1, 0.7, fc="#eef2f7", ec="#4a5a70"))
            label = room.replace("_", "_\n") if width < 1.2 and len(room) > 9 else room
            ax.text(x + (width - 0.1) / 2, level + 0.35, label, ha="center", va="center",
                    fontsize=8 if width >= 1.2 else 7)  # fmt: skip
            where[room] = (x + (width - 0.1) / 2, level + 0.35)
        ax.text(0.05, level + 0.35, f"floor {level}", ha="right", va="center", fontsize=8)
    steps: dict[str, list[int]] = {}
    for k, (room, _) in enumerate(PATH):
        steps.setdefault(room, []).append(k + 1)
    for room, ks in steps.items():  # numbered badges in the rooms a step runs in
        x, y = where[room]
        for j, k in enumerate(ks):
            bx = x - 0.26 * (len(ks) - 1) / 2 + 0.26 * j
            ax.add_patch(plt.Circle((bx, y + 0.5), 0.12, fc="#b03a2e", ec="none"))
            ax.text(bx, y + 0.5, str(k), color="white", ha="center", va="center",
                    fontsize=7.5, fontweight="bold")  # fmt: skip
    ax.text(7.6, len(rows) - 0.35, "a run's data, step by step", fontsize=9, fontweight="bold")
    for k, (room, what) in enumerate(PATH):  # the legend, top to bottom in path order
        y = len(rows) - 1.0 - k * 0.9
        ax.add_patch(plt.Circle((7.75, y), 0.12, fc="#b03a2e", ec="none"))
        ax.text(7.75, y, str(k + 1), color="white", ha="center", va="center", fontsize=7,
                fontweight="bold")  # fmt: skip
        ax.text(8.0, y, f"{what}  [{room}]", fontsize=8, va="center")
    ax.set_xlim(-0.8, 12.4)
    ax.set_ylim(-0.3, len(rows) + 0.2)
    ax.axis("off")
    ax.set_title("gctheory's floors (imports point down) and a run's data on its path")
    fig.savefig(out, dpi=110, bbox_inches="tight")
    plt.close(fig)
    return out


if __name__ == "__main__":
    print(draw(ROOT / "docs" / "_static" / "floors.png"))
