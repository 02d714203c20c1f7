"""
A real run: measured against predicted iteration times
======================================================

:func:`gctheory.cluster.run` trains on real worker processes (here the local
engine: one process per worker on this machine) with the simulator's delays
injected as real waiting, and records every iteration. :func:`gctheory.cluster.compare`
then holds the measured mean iteration time against the prediction of
:mod:`gctheory.runtime` for the injected law (plus the measured overhead of
pipes and decoding), with a z-test. As a negative control, the same run held
against a law twice as slow must be rejected.

Size: 4 workers, a cyclic-MDS code tolerating 1 straggler, 30 iterations of
least squares on synthetic data (``workload="quadratic"``), delays of a few
hundredths of a second: a fraction of a second of CPU in this process and a few
seconds of wall time, most of it starting the workers. A script that runs this
must guard it with ``if __name__ == "__main__":`` (the workers re-import it).
"""

import matplotlib.pyplot as plt
import numpy as np

from gctheory.cluster import compare, run

if __name__ == "__main__":
    result = run(
        "cyclic-mds",
        4,
        s=1,
        delay="shifted_exp(0.02, 0.01)",
        iterations=30,
        workload="quadratic",
        rng=0,
    )
    same = compare(result)  # the law that was injected
    wrong = compare(result, delay="shifted_exp(0.04, 0.02)")  # negative control
    print(result)
    print(f"injected law: agrees = {same.agrees} (p = {same.p_value:.3g})")
    print(f"slower law:   agrees = {wrong.agrees} (p = {wrong.p_value:.3g})")

    # %%
    # Each iteration's measured time, and the two predictions with their intervals.

    it = np.arange(1, result.iteration_time.size + 1)
    fig, ax = plt.subplots(figsize=(10, 4.2), layout="constrained")
    ax.plot(it, result.iteration_time, "o", ms=4, color="k", label="measured, per iteration")
    bands = (
        ("C0", "measured mean", same.measured, same.measured_low, same.measured_high),
        ("C2", f"predicted, {same.delay}", same.predicted, same.predicted_low, same.predicted_high),
        (
            "C3",
            f"predicted, {wrong.delay} (control)",
            wrong.predicted,
            wrong.predicted_low,
            wrong.predicted_high,
        ),
    )
    for color, label, mid, low, high in bands:
        ax.axhline(mid, color=color, label=label)
        ax.axhspan(low, high, color=color, alpha=0.2)
    ax.set_xlabel("iteration")
    ax.set_ylabel("iteration time (s)")
    ax.set_title("cyclic-MDS, n = 4, s = 1, local processes (99% intervals)")
    ax.legend(fontsize=8, loc="center left", bbox_to_anchor=(1.01, 0.5))
    plt.show()
