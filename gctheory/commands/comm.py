"""``gctheory tradeoff-comm``: the communication axis of the atlas, the best code against
bandwidth and the crossover below which an m-fold communication-efficient code wins."""

from __future__ import annotations

import argparse
import json
import math
import tempfile
from pathlib import Path
from typing import Any

from gctheory._output import FORMATS, format_table, wrap
from gctheory.commands._common import use_file_backend

__all__ = ["register"]

_DEFAULT_DELAY = "shifted_exp(1.0, 0.5)"


def _mbit_range(text: str) -> tuple[float, float]:
    try:
        lo, hi = (float(x) for x in text.split(":"))
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"must be LO:HI in Mbit/s (e.g. 1:10000), got {text!r}"
        ) from None
    if not (0 < lo < hi < math.inf):
        raise argparse.ArgumentTypeError(f"must have 0 < LO < HI < inf (Mbit/s), got {text!r}")
    return lo, hi


def _down(text: str) -> float | None:
    if text == "same":
        return None
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"must be 'same', 'inf' or a rate in Mbit/s > 0, got {text!r}"
        ) from None
    if not v > 0:
        raise argparse.ArgumentTypeError(f"must be a rate in Mbit/s > 0 or 'inf', got {text!r}")
    return v


def _seconds(text: str) -> float:
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a number of seconds, got {text!r}") from None
    if not (0 <= v < math.inf):
        raise argparse.ArgumentTypeError(f"must be a finite number of seconds >= 0, got {text!r}")
    return v


def _saving(text: str) -> int:
    try:
        v = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be an integer >= 2, got {text!r}") from None
    if v < 2:
        raise argparse.ArgumentTypeError(f"must be an integer >= 2, got {text!r}")
    return v


def _rows(atlas: Any) -> list[dict[str, Any]]:
    from gctheory.runtime.link import BYTES_PER_MBIT

    rows = []
    for i, b in enumerate(atlas.bandwidths):
        row: dict[str, Any] = {"Mbit/s": f"{b / BYTES_PER_MBIT:.4g}"}
        for m in atlas.ms:
            t, lo, hi = atlas.times[m][i], atlas.low[m][i], atlas.high[m][i]
            row[f"m={m} (s)"] = f"{t:.4g}" + (f" [{lo:.4g}, {hi:.4g}]" if lo < hi else "")
        row["best m"] = atlas.best[i]
        rows.append(row)
    return rows


def _crossover_lines(atlas: Any) -> list[str]:
    from gctheory.runtime.link import BYTES_PER_MBIT

    out = []
    for m, c in atlas.crossovers.items():
        if c.bandwidth is None:
            out.append(f"m = {m}: no crossover in the range; {c.winner_below} wins throughout")
            continue
        txt = f"m = {m}: crossover at {c.bandwidth / BYTES_PER_MBIT:.4g} Mbit/s"
        if c.low is not None and c.high is not None and c.low < c.high:
            txt += f" [{c.low / BYTES_PER_MBIT:.4g}, {c.high / BYTES_PER_MBIT:.4g}]"
        out.append(txt + f" ({c.method}); below it the m-fold code is faster")
    return out


def _handler(args: argparse.Namespace) -> int:
    import numpy as np

    from gctheory.delays.laws import parse_law
    from gctheory.plots.communication import save_communication_atlas
    from gctheory.runtime.link import BYTES_PER_MBIT, Link
    from gctheory.tradeoff.communication import communication_atlas

    use_file_backend()
    lo, hi = args.bandwidth
    down = None if args.down is None else args.down * BYTES_PER_MBIT
    link = Link(up=lo * BYTES_PER_MBIT, down=down, latency=args.latency, shared=args.shared)
    grid = np.geomspace(lo, hi, args.points) * BYTES_PER_MBIT
    atlas = communication_atlas(
        parse_law(args.delay),
        args.n,
        args.s,
        d=args.d,
        link=link,
        bandwidths=grid,
        ms=(1, *args.ms),
        family=args.family,
        trials=args.trials,
        rng=args.seed,
    )
    out = Path(args.out) if args.out else Path(tempfile.mkdtemp(prefix="gctheory-comm-"))
    paths = save_communication_atlas(atlas, out, "comm_atlas")
    title = (
        f"Predicted iteration time against uplink bandwidth (n = {args.n}, s = {args.s}, "
        f"d = {args.d}, delay {args.delay}, {'shared' if args.shared else 'per-worker'} link)"
    )
    notes = _crossover_lines(atlas) + ["wrote " + ", ".join(str(p) for p in paths)]
    if args.format in ("json", "json-rows"):
        rows = [
            {"bandwidth_bytes_per_s": b, **{f"time_m{m}": atlas.times[m][i] for m in atlas.ms}}
            for i, b in enumerate(atlas.bandwidths)
        ]
        cross = {
            str(m): {"bandwidth": c.bandwidth, "low": c.low, "high": c.high, "method": c.method}
            for m, c in atlas.crossovers.items()
        }
        doc = (
            rows
            if args.format == "json-rows"
            else {"title": title, "rows": rows, "crossovers": cross}
        )
        print(json.dumps(doc))
        return 0
    print(format_table(_rows(atlas), args.format, title=title))
    print("\n".join(line for note in notes for line in wrap(note)))
    return 0


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "tradeoff-comm",
        help="the best code against bandwidth: cyclic-MDS vs m-fold Ye-Abbe / CommFR-GC",
        description=(
            "Predicted iteration time of cyclic-MDS and of m-fold communication-efficient "
            "codes (Ye and Abbe 2018: messages d/m at load (s+m)/n; Kadhe et al. 2019: "
            "CommFR-GC) over a per-worker or shared link, against the uplink bandwidth, with "
            "the crossover below which the m-fold code wins. Writes comm_atlas.png, .svg, .csv."
        ),
    )
    p.add_argument("--n", type=int, required=True, help="number of workers")
    p.add_argument("--s", type=int, default=1, help="stragglers tolerated (default 1)")
    p.add_argument("--d", type=int, required=True, help="gradient length in numbers (float64)")
    p.add_argument(
        "--ms", type=_saving, nargs="+", default=[2, 4], help="m-fold savings (default 2 4)"
    )
    p.add_argument(
        "--family",
        choices=("ye-abbe", "commfr-gc"),
        default="ye-abbe",
        help="the m-fold codes (commfr-gc needs (s + m) | n; default ye-abbe)",
    )
    p.add_argument(
        "--delay",
        default=_DEFAULT_DELAY,
        help=f"time for one worker to process the whole dataset (default {_DEFAULT_DELAY!r})",
    )
    p.add_argument(
        "--bandwidth",
        type=_mbit_range,
        default=(1.0, 10_000.0),
        metavar="LO:HI",
        help="uplink bandwidth range in Mbit/s (default 1:10000)",
    )
    p.add_argument("--points", type=int, default=13, help="bandwidths in the range (default 13)")
    p.add_argument(
        "--down",
        type=_down,
        default=None,
        help="downlink in Mbit/s, 'inf' (free) or 'same' as the uplink (default same)",
    )
    p.add_argument("--latency", type=_seconds, default=0.0, help="one-way latency, s (default 0)")
    p.add_argument(
        "--shared",
        action="store_true",
        help="the master's network card is the bottleneck all messages cross",
    )
    p.add_argument("--trials", type=int, default=4000, help="Monte Carlo draws (shared link)")
    p.add_argument("--seed", type=int, default=0, help="seed (default 0)")
    p.add_argument("--out", default=None, help="folder for the figure (default: a new temp one)")
    p.add_argument("--format", choices=FORMATS, default="text", help="output format")
    p.set_defaults(func=_handler)
