"""CLI: ``gctheory run``: coded gradient descent on real workers, measured against the theory."""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

import numpy as np

from gctheory._names import SCHEME_NAMES, SIMULATED_ONLY, training_key
from gctheory._output import add_format_argument, format_table
from gctheory.commands._common import scheme_type

#: the overhead model of the measured-versus-predicted comparison (chosen by which one
#: agrees on runs with no injected delay, where only the overheads remain)
OVERHEAD_DEFAULT = "fixed"


def _or_none(x: float) -> float | None:
    return None if np.isnan(x) else x


def _summary(r: Any, cmp: Any) -> dict[str, Any]:
    """One run's numbers (JSON: numbers as numbers)."""
    row: dict[str, Any] = {
        "scheme": r.scheme,
        "engine": r.engine,
        "n": r.n,
        "need": r.need,
        "delay": r.delay,
        "iterations": r.iterations,
        "iterations_per_s": r.iterations_per_second,
        "mean_iteration_s": cmp.measured if cmp else float(np.mean(r.iteration_time)),
        "mean_iteration_low": cmp.measured_low if cmp else None,
        "mean_iteration_high": cmp.measured_high if cmp else None,
        "predicted_s": cmp.predicted if cmp else None,
        "predicted_low": cmp.predicted_low if cmp else None,
        "predicted_high": cmp.predicted_high if cmp else None,
        "prediction_method": cmp.method if cmp else None,
        "law_mean_s": cmp.law_mean if cmp else None,
        "overhead_s": cmp.overhead if cmp else None,
        "agrees": cmp.agrees if cmp else None,
        "p_value": cmp.p_value if cmp else None,
        "stragglers_ignored_per_it": float(np.mean(r.stragglers_ignored)),
        "decode_ms": 1e3 * float(np.mean(r.decode_time)),
        # the decoder's forward-error bound (None: nothing decoded, e.g. uncoded GD)
        "decode_noise_bound_max": _or_none(r.noise_bound_max),
        "decode_noise_bound_median": _or_none(r.noise_bound_median),
        "bytes_down_per_it": float(np.mean(r.bytes_down)),
        "bytes_up_per_it": float(np.mean(r.bytes_up)),
        "message_numbers_code": r.message_numbers,
        "message_numbers_measured": r.message_numbers_measured,
        "dead_workers": sorted(r.dead),
    }
    if r.config.get("wait_mu") is not None:  # the paper's (1 + mu) x first rule
        row["wait_mu"] = r.config["wait_mu"]
    if "waited_all" in r.config:  # sequential codes: rounds that left the model, or straggled
        row["rounds_waited_for_all"] = r.config["waited_all"]
        row["rounds_with_stragglers"] = r.config["straggled"]
        row["rounds_ended_by_deadline"] = r.config.get("deadline_rounds", 0)
    for key, v in r.metrics.items():
        row[f"final_{key}"] = float(v[-1])
    return row


def _cmd_run(args: argparse.Namespace) -> int:
    from gctheory.cluster.results import ClusterError

    try:
        return _run_and_report(args)
    except ClusterError as exc:
        return _stopped(exc, args)


def _stopped(exc: Any, args: argparse.Namespace) -> int:
    """A run that could not go on (too many workers lost, a timeout, an oracle error):
    keep what it reached (the trace and the parameters, as asked) and say so in one line."""
    kept = []
    r = exc.run
    if r is not None and r.iterations >= 1:
        if args.trace:
            r.save(args.trace)
            kept.append(f"the trace of its {r.iterations} iteration(s) in {args.trace}")
        if args.save_params:
            np.save(args.save_params, r.params)
            kept.append(f"the parameters reached in {args.save_params}")
    message = " ".join(str(exc).split())  # one line
    if kept:
        message += "; kept " + " and ".join(kept)
    print(f"gctheory run: error: {message}", file=sys.stderr)
    return 1


def _code_options(args: argparse.Namespace) -> dict[str, Any]:
    """The code's options from ``--code-option KEY=VALUE`` and the sequential codes'
    ``--B/--W/--lambda/--mu`` (refused for other schemes)."""
    code_options: dict[str, Any] = {}
    for item in args.code_option or []:
        key, eq, val = item.partition("=")
        if not eq:
            raise ValueError(f"--code-option takes KEY=VALUE, got {item!r}")
        words = {"true": True, "yes": True, "on": True, "false": False, "no": False, "off": False}
        if val.lower() in words:  # a flag gets a bool: the string "no" would read as true
            code_options[key] = words[val.lower()]
            continue
        try:
            code_options[key] = int(val)
        except ValueError:
            try:
                code_options[key] = float(val)
            except ValueError:
                code_options[key] = val
    sequential = args.scheme in ("sr-sgc", "m-sgc")
    for key, opt, val in (
        ("B", "--B", args.B), ("W", "--W", args.W), ("lam", "--lambda", args.lam),
        ("mu", "--mu", args.mu),
    ):  # fmt: skip
        if val is None:
            continue
        if not sequential:  # the sequential codes' (B, W, lambda) and waiting factor only
            raise ValueError(f"{opt} applies only to --scheme sr-sgc or m-sgc, not {args.scheme!r}")
        code_options[key] = val
    return code_options


def _run_and_report(args: argparse.Namespace) -> int:
    from gctheory import cluster as cl

    if args.cleanup:
        return _cleanup()
    if args.list:
        rows = [{"scheme": k, "description": v} for k, v in SCHEME_NAMES.items()
                if k not in SIMULATED_ONLY]  # fmt: skip
        print(format_table(rows, args.format))
        return 0
    if args.scheme is None:
        raise ValueError("--scheme is required; gctheory run --list names the schemes")
    for dest, low in (("K", 1), ("eval_every", 0)):
        v = getattr(args, dest)
        if v is not None and v < low:
            raise ValueError(f"--{dest.replace('_', '-')} must be an integer >= {low}, got {v}")
    code_options = _code_options(args)
    engine: Any = args.engine
    if args.network is not None and args.engine == "mpi":
        if "OMPI_COMM_WORLD_SIZE" not in os.environ:  # the launcher: build, run mpiexec
            return _mpi_over_network(args)
    elif args.network is not None:
        if args.engine not in ("local", "dask"):  # local: the default, not a choice
            raise ValueError(
                f"--network runs on the dask or mpi engine, not --engine {args.engine}"
            )
        engine = cl.make_engine("dask", network=args.network)
    if args.engine == "mpi":
        from gctheory.cluster.mpi import is_worker_rank, serve_worker

        if is_worker_rank():  # ranks 1..n: serve the master, print nothing
            serve_worker()
            return 0
    from gctheory._progress import Progress

    # the CLI's one progress line (remaining time, erased at the end, off a terminal
    # silent), driven by the run's per-iteration callback instead of its own bar
    bar = Progress(
        args.iterations, f"gctheory run {args.scheme}", enabled=False if args.quiet else None
    )
    spec = _spec(args, code_options, engine)
    with bar:
        r = cl.run(
            spec=spec,
            trace=args.trace,
            progress=False,
            on_iteration=lambda t, engine: bar.update(t + 1),
            checkpoint=args.checkpoint,
            resume=args.resume,
        )
    net = engine.network_report() if hasattr(engine, "network_report") else {}
    return _report(r, args, net)


def _spec(args: argparse.Namespace, code_options: dict[str, Any], engine: Any) -> Any:
    """The run's description from the command's options (``engine``: the name, or the
    engine built for ``--network``)."""
    from gctheory.cluster.spec import RunSpec

    return RunSpec.build(
        training_key(args.scheme), args.n, args.s, K=args.K, m=args.m,
        code_options=code_options, workload=args.model, engine=engine, delay=args.delay,
        iterations=args.iterations, step_size=args.step_size, rng=args.seed,
        preempt=not args.no_preempt, deadline=args.deadline, on_error=args.on_error,
        timeout=args.timeout, eval_every=args.eval_every, wait_mu=args.wait_mu,
    )  # fmt: skip


def _mpi_over_network(args: argparse.Namespace) -> int:
    """``--engine mpi --network``: build the network, run this same command under
    ``mpiexec`` with rank 0 here and ranks 1..n in the host namespaces, take it down."""
    import subprocess

    from gctheory.cluster.network import Network

    argv = [sys.executable, "-m", "gctheory", *sys.argv[1:]]
    with Network(args.network, hosts=min(args.n, 8)) as net:
        cmd, env = net.mpiexec(args.n + 1, argv)
        c0 = net.counters()
        code = subprocess.run(cmd, env=env, check=False).returncode
        c1 = net.counters()
        print(f"network {args.network} ({net.n_hosts} host namespaces): "
              f"{c1['rx'] - c0['rx']} bytes to the master, {c1['tx'] - c0['tx']} from it "
              "(the uplink's counters, the whole mpiexec job)", file=sys.stderr)  # fmt: skip
    return code


def _cleanup() -> int:
    """``--cleanup``: remove what killed networked runs left, and say what."""
    from gctheory.cluster.network import cleanup

    removed = cleanup()
    for what in removed:
        print(f"removed {what}")
    print(f"gctheory run --cleanup: removed {len(removed)} leftover(s) of killed runs")
    return 0


def _network_type(text: str) -> Any:
    from gctheory.cluster.network import NetworkSpec

    try:
        return NetworkSpec.parse(text).label()  # checked here, parsed again by the engine
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _report(r: Any, args: argparse.Namespace, net: dict[str, Any] | None = None) -> int:
    """Save the parameters, compare with the prediction where it applies, print the
    summary (stdout) and where the trace went (stderr)."""
    from gctheory import cluster as cl
    from gctheory.cluster.compare import compare

    if args.save_params:
        np.save(args.save_params, r.params)
    sequential = r.scheme in cl.SEQUENTIAL_SCHEMES  # no runtime prediction for them (yet)
    per_slot = int(r.config.get("tasks_per_slot", 1))  # > 1: tasks queued; compare refuses
    ok = r.iterations >= 2 and not sequential and per_slot == 1
    link = None
    from gctheory.cluster.compare import _RUNTIME_NAMES

    if net and net.get("network") and r.scheme in _RUNTIME_NAMES:  # predict the transfer
        from gctheory.cluster.network import NetworkSpec

        link = NetworkSpec.parse(net["network"]).link(payload=True)
    over_link = {"link": link, "d": r.params.size} if link is not None else {}
    cmp = compare(r, overhead=args.overhead, **over_link) if ok else None
    row = _summary(r, cmp)
    if cmp is not None and link is not None:
        row["comm_s_predicted"] = cmp.comm_s  # down and up, latency both ways
        row["comm_up_s_predicted"] = cmp.comm_up_s  # one message's trip up
        row["comm_up_s_measured"] = cmp.comm_measured_s
    row["coded_workers_per_engine_thread"] = per_slot
    row.update(net or {})  # a rate-limited network: its bytes and transfer times
    if per_slot > 1:
        print(f"gctheory run: no comparison with the prediction: up to {per_slot} coded "
              "workers share one engine thread, so their tasks queued (give the Dask "
              "cluster at least n threads)", file=sys.stderr)  # fmt: skip
    if args.format in ("json", "csv"):
        print(format_table([row], args.format))
    else:
        rows = [{"quantity": k, "value": v} for k, v in row.items()]
        print(format_table(rows, args.format, title=f"gctheory run {r.scheme} n={r.n}"))
    if args.trace:
        print(f"trace: {args.trace} (read it with: gctheory delays summary {args.trace} "
              "--where status=used)", file=sys.stderr)  # fmt: skip
    return 0


def _engine(text: str) -> str:
    name = text.partition("=")[0]
    if name not in ("local", "dask", "mpi"):
        raise argparse.ArgumentTypeError(
            f"--engine must be local, dask, dask=ADDRESS or mpi, got {text!r}"
        )
    return text


def register(sub: Any) -> None:
    p = sub.add_parser(
        "run",
        help="run coded gradient descent on real workers (local, Dask, MPI) and compare the "
        "measured iteration time with the prediction",
        description="Train with a gradient-coding scheme on real worker processes, inject the "
        "simulator's delays as real waiting, record a trace in the gctheory delays format, and "
        "hold the measured mean iteration time against gctheory.runtime's prediction. The "
        "schemes are gradient codes (Tandon et al. 2017) and their successors: --list names "
        "each with its paper.",
    )
    p.add_argument(
        "--scheme",
        type=scheme_type(
            plugins=True,
            refused={
                k: "keeps server state across iterations and is simulated only (gctheory simulate)"
                for k in SIMULATED_ONLY
            },
        ),  # fmt: skip
        help="a scheme (see --list), e.g. cyclic-mds, frc, uncoded, ignore-s",
    )
    p.add_argument(
        "--list", action="store_true", help="list the schemes that run for real, and exit"
    )
    p.add_argument("--n", type=int, default=8, help="workers (default 8)")
    p.add_argument("--s", type=int, help="stragglers tolerated")
    p.add_argument("--K", type=int, help="workers waited for (ignore, approximate codes)")
    p.add_argument("--m", type=int, default=1, help="communication saving (ye_abbe, commfr)")
    p.add_argument("--B", type=int, help="sr-sgc / m-sgc: longest burst of one straggler")
    p.add_argument("--W", type=int, help="sr-sgc / m-sgc: window of rounds (>= 2)")
    p.add_argument(
        "--lambda", dest="lam", type=int, help="sr-sgc / m-sgc: distinct stragglers per window"
    )
    p.add_argument("--mu", type=float, help="sr-sgc / m-sgc: wait (1 + mu) x the fastest (1)")
    p.add_argument(
        "--code-option", action="append", metavar="KEY=VALUE", help="a code option (repeatable)"
    )
    p.add_argument(
        "--engine",
        type=_engine,
        default="local",
        help="local (default) | dask (a LocalCluster) | dask=tcp://HOST:PORT | mpi (under "
        "mpiexec -n N+1)",
    )
    p.add_argument(
        "--network",
        type=_network_type,
        metavar="SPEC",
        help="run the Dask engine over rate-limited links between network namespaces (Linux, "
        'root): "bandwidth=10mbit,latency=5ms[,shared][,hosts=N]"',
    )
    p.add_argument(
        "--cleanup",
        action="store_true",
        help="remove the namespaces and links that killed --network runs left, and exit",
    )
    p.add_argument(
        "--delay",
        default="constant(0)",
        help='injected delay per unit load, e.g. "shifted_exp(0.05, 0.02)" or "trace:PATH"',
    )
    _add_run_control(p)
    add_format_argument(p)
    p.set_defaults(func=_cmd_run)


def _add_run_control(p: argparse.ArgumentParser) -> None:
    """``gctheory run``'s options of the run itself: length, workload, faults, outputs."""
    p.add_argument("--iterations", type=int, default=100, help="iterations (default 100)")
    p.add_argument(
        "--model", choices=("softmax", "logistic"), default="softmax", help="digits workload"
    )
    p.add_argument("--step-size", type=float, help="default 1/L")
    p.add_argument("--seed", type=int, default=0, help="seed (split, code, delays)")
    p.add_argument("--deadline", type=float, help="approximate codes: decode after this many s")
    p.add_argument(
        "--wait-mu",
        type=float,
        metavar="MU",
        help="exact codes: wait by Krishnan et al.'s rule (ICLR 2023, Sec. 5) instead of for "
        "the fastest n - s: until (1 + MU) x the first answer, then decode if at most s are "
        "missing, else wait for all",
    )
    p.add_argument(
        "--on-error",
        choices=("stop", "straggler"),
        default="stop",
        help="a worker whose gradient raises: stop the run (naming worker and partition) or "
        "count that worker as a straggler for the iteration",
    )
    p.add_argument("--timeout", type=float, default=60.0, help="seconds without any answer")
    p.add_argument("--eval-every", type=int, default=1, help="metrics every k iterations")
    p.add_argument(
        "--overhead",
        choices=("fixed", "resampled"),
        default=OVERHEAD_DEFAULT,
        help="the prediction's overhead model: the law's expected wait plus the mean measured "
        "overhead (fixed), or a Monte Carlo of the rule with each worker's time lengthened by "
        f"one of its measured overheads (resampled) (default {OVERHEAD_DEFAULT})",
    )
    p.add_argument("--no-preempt", action="store_true", help="let stragglers finish (late)")
    p.add_argument("--trace", help="write the trace CSV (and PATH.json for replay) here")
    p.add_argument("--save-params", metavar="PATH", help="save the final parameters (.npy) here")
    p.add_argument(
        "--checkpoint", metavar="PATH", help="checkpoint the run there after every iteration"
    )
    p.add_argument("--resume", action="store_true", help="resume from --checkpoint when it exists")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
