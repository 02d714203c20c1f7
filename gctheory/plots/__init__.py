"""Figures: public plot functions, a registry of figure makers and one way to save them.

The public plot functions (listed in ``__all__``) draw on the caller's matplotlib
axes or figure, in the style of ``sinter.plot_error_rate(ax=...)``: a single-panel
function takes ``ax=``, a multi-panel one ``fig=`` (without them, each makes its own
figure); each draws from computed data passed in, or computes the data from its
parameters when none is given, and returns a :class:`Drawing` (the figure, its axes
and the artists it added). None of them changes matplotlib's global state.

Each topic module in this package (``gctheory/plots/<topic>.py``) defines
figure makers with the :func:`figure` decorator; ``gctheory reproduce`` imports
them all and runs each. A maker draws from values computed by the modules of
``gctheory`` (plots compute nothing of their own) and saves with
:func:`save_figure`, which writes the PNG, the SVG and the CSV of the data
behind the figure, so a reader can re-plot or check every point.

Importing this package leaves matplotlib's backend and rcParams as they were;
the commands that write figures choose the Agg backend themselves
(:func:`gctheory.commands._common.use_file_backend`).
"""

from __future__ import annotations

from gctheory.plots._base import (
    _FIGURES as _FIGURES,
)
from gctheory.plots._base import (
    _PNG_METADATA as _PNG_METADATA,
)
from gctheory.plots._base import (
    _SVG_METADATA as _SVG_METADATA,
)
from gctheory.plots._base import (
    Drawing,
    FigureMaker,
    all_figures,
    figure,
    save_figure,
)
from gctheory.plots._base import (
    _artists_of as _artists_of,
)
from gctheory.plots._base import (
    _axes as _axes,
)
from gctheory.plots._base import (
    _figure as _figure,
)
from gctheory.plots._base import (
    _format_value as _format_value,
)
from gctheory.plots._base import (
    _legend as _legend,
)
from gctheory.plots._base import (
    _Recorder as _Recorder,
)
from gctheory.plots._base import (
    plt as plt,
)

__all__ = [
    # the registry
    "Drawing",
    "FigureMaker",
    "all_figures",
    "figure",
    "save_figure",
    # the public plot functions, one per figure family
    "plot_approximate_codes",
    "plot_binomial_coverage",
    "plot_codes_stability",
    "plot_condition_tail",
    "plot_cond_vs_n",
    "plot_density_evolution",
    "plot_delay_fits",
    "plot_delay_scheme_times",
    "plot_halbawi_fig3",
    "plot_halbawi_f",
    "plot_iteration_times",
    "plot_ldpc_waterfall",
    "plot_load_bounds",
    "plot_loss_curves",
    "plot_raptor_condition54",
    "plot_runtime_schemes",
    "plot_skappa_empirical",
    "plot_skappa_vs_n",
    "plot_skappa_vs_s",
    "plot_stability_generators",
    "plot_tradeoff",
    "plot_xu_order_statistics",
    "plot_zhang_runtime",
    "plot_completion_times",
    "plot_gap_and_communication",
]

# The public plot functions: explicit imports (for readers and type checkers); the
# registry they use is in ``_base``. ``plt`` stays importable for the
# figure makers and the commands but is not part of the public API.
from gctheory.plots.approximate import plot_approximate_codes
from gctheory.plots.codes import plot_codes_stability
from gctheory.plots.conditioning import (
    plot_cond_vs_n,
    plot_condition_tail,
    plot_skappa_empirical,
    plot_skappa_vs_n,
    plot_skappa_vs_s,
)
from gctheory.plots.coverage import plot_binomial_coverage
from gctheory.plots.delays import plot_delay_fits, plot_delay_scheme_times
from gctheory.plots.generators import plot_stability_generators
from gctheory.plots.ldpc import (
    plot_density_evolution,
    plot_ldpc_waterfall,
    plot_raptor_condition54,
)
from gctheory.plots.load_bounds import plot_load_bounds
from gctheory.plots.runtime import (
    plot_halbawi_f,
    plot_halbawi_fig3,
    plot_runtime_schemes,
    plot_xu_order_statistics,
    plot_zhang_runtime,
)
from gctheory.plots.tradeoff import plot_tradeoff
from gctheory.plots.training import (
    plot_completion_times,
    plot_gap_and_communication,
    plot_iteration_times,
    plot_loss_curves,
)
