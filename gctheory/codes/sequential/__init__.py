"""Sequential gradient coding: SR-SGC and M-SGC under the (B, W, lambda) straggler model.

Krishnan, Ebrahimi and Khisti, "Sequential gradient coding for straggler
mitigation", ICLR 2023. Jobs (gradients) ``g(0), g(1), ...`` arrive one per
round; job ``t`` starts in round ``t`` and must be decoded by the end of round
``t + T``. Coding runs across workers *and* rounds.

**Straggler model** (:class:`BurstyStragglerModel`): in every window of ``W``
consecutive rounds, (i) at most ``lambda`` distinct workers straggle, and (ii)
the rounds in which one worker straggles lie within ``B`` consecutive rounds
(a burst of length at most ``B``). Windows that start before round 0 are cut
at round 0.

**SR-SGC** (selective-repeat SGC, :class:`SRSGC`): every round each worker
computes its part of the current job under an ``(n, s)`` gradient code,
``s = ceil(B lambda / (W - 1 + B))``, ``B`` dividing ``W - 1``. If more than
``s`` transmissions of job ``t`` are missing after round ``t``, in round
``t + B`` that many workers minus ``s`` that did not deliver job ``t`` repeat
their job-``t`` task instead of job ``t + B``'s; job ``t`` decodes from rounds
``t`` and ``t + B``. Delay ``T = B``, load ``(s + 1) / n``.

**M-SGC** (multiplexed SGC, :class:`MSGC`): job ``t`` is split into ``D1``
(``n (W - 1)`` uncoded chunks, worker ``i``'s ``W - 1`` chunks processed in
rounds ``t .. t + W - 2``) and ``D2`` (``B`` groups, each under an
``(n, lambda)`` gradient code, group ``b`` in round ``t + W - 1 + b``). Every
round a worker does ``W - 1 + B`` equal minitasks, one per job in flight; a
worker that missed some of its D1 chunks redoes them in its D2 slots (one per
slot) before doing D2 work. Delay ``T = W - 2 + B``; load
``(lambda + 1)(W - 1 + B) / (n (B + (W - 1)(lambda + 1)))``
(``(W - 1 + B) / (n (W - 1))`` when ``lambda = n``: D2 is empty).

Both schemes are *masters*: :meth:`SequentialCode.master` returns a state
machine that assigns each round's tasks from what arrived before
(:meth:`SequentialMaster.assignment`), records a round's stragglers
(:meth:`~SequentialMaster.push`, undone by :meth:`~SequentialMaster.pop`) and
says which jobs decode. The numeric layer (:meth:`SequentialMaster.encode_round`,
:meth:`SequentialMaster.decode_job`) computes real transmissions with
:class:`gctheory.codes.CyclicMDSCode` and decodes the gradient sum of job ``t``
from whatever arrived. :func:`verify_sequential` checks every admissible
straggler pattern (exhaustive, small sizes); :func:`find_failure` searches the
patterns *outside* the model for one that breaks decoding (negative control).

The module is a package split by concept (parameters and loads in ``_params``, the
straggler model in ``_model``, the shared master in ``_base``, the schemes in ``_sr_sgc``
and ``_m_sgc``, the exhaustive checks in ``_verify``); every name stays importable from
here, and the definitions keep this module as their ``__module__``, so pickles are as
before.
"""

from __future__ import annotations

from gctheory._home import keep_home
from gctheory.codes.sequential._base import SequentialCode, SequentialMaster, _check_code
from gctheory.codes.sequential._m_sgc import MSGC, _MMaster
from gctheory.codes.sequential._model import BurstyStragglerModel
from gctheory.codes.sequential._params import (
    _int,
    check_sgc_params,
    m_sgc_load,
    sr_sgc_load,
    sr_sgc_s,
)
from gctheory.codes.sequential._sr_sgc import SRSGC, _sr_encode_round, _SRMaster
from gctheory.codes.sequential._verify import (
    SequentialVerification,
    _walk,
    find_failure,
    verify_sequential,
)

__all__ = [
    "BurstyStragglerModel",
    "SequentialCode",
    "SequentialMaster",
    "SRSGC",
    "MSGC",
    "SequentialVerification",
    "sr_sgc_s",
    "sr_sgc_load",
    "m_sgc_load",
    "check_sgc_params",
    "verify_sequential",
    "find_failure",
]

keep_home(
    __name__,
    _check_code,
    _int,
    _MMaster,
    _sr_encode_round,
    _SRMaster,
    _walk,
    BurstyStragglerModel,
    MSGC,
    SequentialCode,
    SequentialMaster,
    SequentialVerification,
    SRSGC,
    check_sgc_params,
    find_failure,
    m_sgc_load,
    sr_sgc_load,
    sr_sgc_s,
    verify_sequential,
)
