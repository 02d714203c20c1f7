"""
Fitting measured delays: AWS Lambda workers
===========================================

Which law describes your workers' times? :func:`gctheory.delays.fit_laws` fits
each candidate by maximum likelihood (with intervals, AIC and the KS and
Anderson-Darling statistics; ``bootstrap=`` adds goodness-of-fit p-values) and
:func:`gctheory.plots.plot_delay_fits` draws each load's empirical survival
function against every fitted law, on log scales where the tail shows.

The data: Krishnan, Ebrahimi and Khisti (ICLR 2023) measured 256 AWS Lambda
workers for 30 rounds at five loads (campaign ``cnn-desktop-long``, region
Canada); they ship inside gctheory as package data, read by
:func:`gctheory.data.lambda_delays`.

Size: five loads of 7680 times each, five laws (the two-component mixture, whose
likelihood search is the slow one, is left out: add ``"mixture"`` for the full
fit), no bootstrap; about a second of CPU.
"""

import matplotlib.pyplot as plt

from gctheory.data import lambda_delays
from gctheory.delays import fit_laws
from gctheory.plots import plot_delay_fits

CAMPAIGN = {"profile": "cnn-desktop-long", "region": "Canada"}


trace = lambda_delays(**CAMPAIGN)  # shipped inside the package (gctheory/data)
source = "measured (AWS Lambda)"
print(source, "- loads:", trace.loads, "- rounds x workers:", trace.rounds(0.5).shape)

# %%
# One fit per law and load; each :class:`~gctheory.delays.LawFit` carries its
# parameters with intervals and its AIC.

laws = ("shifted_exp", "pareto", "weibull", "gamma", "lognormal")
fits = {}
for load in trace.loads:
    for fit in fit_laws(trace.times(load), laws):
        fits[(fit.law, float(load))] = fit
best = min((f for (law, ld), f in fits.items() if ld == 0.5), key=lambda f: f.aic)
print("best AIC at load 0.5:", best.law, best.params)

fig = plt.figure(figsize=(3.2 * len(trace.loads) + 1.6, 3.9), layout="constrained")
plot_delay_fits(trace, fits, fig=fig)
fig.suptitle(f"Worker times, {source}: every law fitted by maximum likelihood")
plt.show()
