"""Claims judged on real runs of :mod:`gctheory.cluster`: the measured iteration times of
coded gradient descent on worker processes of this machine, against gctheory.runtime's
prediction (``internal-``) and against the qualitative results of the peers' experiments
(Tandon et al. 2017; Wang, Charles, Papailiopoulos 2019, ErasureHead).

One module per topic: ``runs``.
"""
