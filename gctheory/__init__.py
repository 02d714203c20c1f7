"""gctheory: the theory of gradient coding, turned into numbers you can check.

Every analytic quantity (a tail bound, a threshold, a lower bound, an expected
runtime) has a Monte Carlo twin, and the source papers' claims are recomputed
in ``paper_checks``. Modules:

montecarlo    seeded, chunked Monte Carlo engine; ``Estimate`` with confidence intervals
generators    Gaussian / Vandermonde / systematic generator matrices of [N, K] codes
codes         gradient codes behind one interface (Tandon, Ye-Abbe, CommFR-GC,
              Reed-Solomon, d-FRC, batch raptor, Bernoulli) and their stability
conditioning  Chen-Dongarra tail bounds, s_kappa (Kadhe et al. Theorem 2), worst-case
              condition numbers of Gaussian and Vandermonde codes
tables        paper tables recomputed (Table I of Kadhe et al.)
ldpc          density-evolution thresholds, batched peeling, waterfalls, LT/raptor
load_bounds   lower bounds on computation load (Wang et al.) and the codes that meet them
order_stats   expected order statistics (exponential, shifted exponential, Pareto, any CDF)
runtime       expected iteration times of the schemes and the parameters that minimise them
training      straggler simulation of distributed training on real data
tradeoff      every scheme side by side for a user's cluster: one table, one atlas
              (``gctheory.tradeoff(n, ...)`` calls ``gctheory.tradeoff.tradeoff``)

Every public name of these modules is available here too (imported lazily, on
first use), except names two modules share (``SCHEMES`` of ``runtime`` and of
``training``): use the module for those.
"""

from __future__ import annotations

import importlib
from typing import Any

__version__ = "0.1.0"

_SUBMODULES = (
    "montecarlo",
    "generators",
    "codes",
    "conditioning",
    "tables",
    "ldpc",
    "load_bounds",
    "order_stats",
    "runtime",
    "training",
    "tradeoff",
)

# name -> module that defines it; tests/test_init.py checks this against each module's __all__
_LAZY = {
    # gctheory.montecarlo
    "DEFAULT_CHUNK_SIZE": "montecarlo",
    "Estimate": "montecarlo",
    "binomial_estimate": "montecarlo",
    "chunk_plan": "montecarlo",
    "estimate_mean": "montecarlo",
    "estimate_probability": "montecarlo",
    "seed_sequence": "montecarlo",
    # gctheory.generators
    "VANDERMONDE_NODES": "generators",
    "gaussian_generator": "generators",
    "systematic_generator": "generators",
    "vandermonde_generator": "generators",
    "vandermonde_nodes": "generators",
    # gctheory.codes
    "ApproxDecodeResult": "codes",
    "BatchRaptorCode": "codes",
    "BernoulliGradientCode": "codes",
    "COMMFR_FAMILIES": "codes",
    "CommFRCode": "codes",
    "CommFRLDPCCode": "codes",
    "CyclicMDSCode": "codes",
    "DFractionalRepetitionCode": "codes",
    "DecodeResult": "codes",
    "DecodingCost": "codes",
    "FractionalRepetitionCode": "codes",
    "GradientCode": "codes",
    "MatrixGradientCode": "codes",
    "RSDecodeResult": "codes",
    "ReedSolomonCode": "codes",
    "STABILITY_FAMILIES": "codes",
    "StabilityPoint": "codes",
    "ToleranceCheck": "codes",
    "YeAbbeCode": "codes",
    "check_positive_int": "codes",
    "commfr_code": "codes",
    "commfr_triple": "codes",
    "cyclic_support": "codes",
    "decoding_error": "codes",
    "decoding_stability": "codes",
    "dfrc_expected_error": "codes",
    "dfrc_failure_probability": "codes",
    "dfrc_group_sizes": "codes",
    "dfrc_theorem4_load": "codes",
    "effective_condition_number": "codes",
    "estimate_decoding_failure": "codes",
    "estimate_mean_error": "codes",
    "join_chunks": "codes",
    "mask_matrix": "codes",
    "minimum_distance": "codes",
    "peeling_decode": "codes",
    "recovery_error": "codes",
    "row_balanced_mask_matrix": "codes",
    "rs_decoding_vector": "codes",
    "rs_decoding_vector_solve": "codes",
    "rs_encoding_matrix": "codes",
    "rs_inverse_table": "codes",
    "rs_polynomials": "codes",
    "rs_tolerance": "codes",
    "split_chunks": "codes",
    "stability_code": "codes",
    "target_matrix": "codes",
    "theorem6_batch_size": "codes",
    "theorem6_degree_distribution": "codes",
    "theorem6_mean_degree": "codes",
    "validate_survivors": "codes",
    "verify_straggler_sets": "codes",
    "ye_abbe_coefficients": "codes",
    "ye_abbe_decoding_cost": "codes",
    # gctheory.codes: expander, designs, IS-GC (issue 16)
    "BIBDGradientCode": "codes",
    "BlockDesign": "codes",
    "ExpanderCode": "codes",
    "GraphAssignmentCode": "codes",
    "ISGCDecoder": "codes",
    "ISGCResult": "codes",
    "StochasticGradientCode": "codes",
    "affine_plane": "codes",
    "bibd": "codes",
    "bibd_error": "codes",
    "circulant_graph": "codes",
    "circulant_spectrum": "codes",
    "complete_design": "codes",
    "cyclic_max_disjoint": "codes",
    "expander_error_bound": "codes",
    "frc_expected_recovered": "codes",
    "glasgow_wootters_random_bound": "codes",
    "graph_adversarial_bound": "codes",
    "graph_optimal_alpha": "codes",
    "graph_spectrum": "codes",
    "margulis_graph": "codes",
    "projective_plane": "codes",
    "random_regular_graph": "codes",
    "sgc_variance": "codes",
    "ye_abbe_lower_bound": "codes",
    # gctheory.conditioning
    "C_CHEN_DONGARRA": "conditioning",
    "EmpiricalSKappa": "conditioning",
    "FLOAT64_RELIABLE_LIMIT": "conditioning",
    "Float64Warning": "conditioning",
    "GRAM_LIMIT": "conditioning",
    "MaxCondition": "conditioning",
    "PREFACTORS": "conditioning",
    "RegimeWarning": "conditioning",
    "SKappaBound": "conditioning",
    "c_interval": "conditioning",
    "chen_dongarra_tail": "conditioning",
    "condition_number_mp": "conditioning",
    "condition_numbers": "conditioning",
    "condition_tail_mc": "conditioning",
    "empirical_s_kappa": "conditioning",
    "empirical_s_kappa_mc": "conditioning",
    "gaussian_condition_bound": "conditioning",
    "is_monotone_decreasing": "conditioning",
    "kappa_condition": "conditioning",
    "max_condition": "conditioning",
    "s_kappa_bound": "conditioning",
    "s_kappa_commfr": "conditioning",
    "s_kappa_shortfall_mc": "conditioning",
    "s_kappa_ye_abbe": "conditioning",
    "straggler_union_bound": "conditioning",
    "subset_failure_mc": "conditioning",
    "t_star": "conditioning",
    "union_bound_profile": "conditioning",
    "vandermonde_condition_mp": "conditioning",
    # gctheory.tables
    "TABLE1_PARAMETERS": "tables",
    "TABLE1_PRINTED": "tables",
    "table1": "tables",
    # gctheory.ldpc
    "HAVE_NUMBA": "ldpc",
    "RaptorParameters": "ldpc",
    "Threshold": "ldpc",
    "WaterfallPoint": "ldpc",
    "bec_threshold": "ldpc",
    "block_failure_rate": "ldpc",
    "check_condition_54": "ldpc",
    "count_failure_rate": "ldpc",
    "critical_erasure_count": "ldpc",
    "de_fixed_point": "ldpc",
    "de_trajectory": "ldpc",
    "design_rate": "ldpc",
    "edge_to_node": "ldpc",
    "lt_residual_fraction": "ldpc",
    "node_to_edge": "ldpc",
    "peel": "ldpc",
    "peel_batch": "ldpc",
    "raptor_code_matrix": "ldpc",
    "raptor_degree_distribution": "ldpc",
    "raptor_failure_rate": "ldpc",
    "raptor_parameters": "ldpc",
    "raptor_residual_rate": "ldpc",
    "regular_ensemble": "ldpc",
    "regular_threshold": "ldpc",
    "residual_erasure_rate": "ldpc",
    "waterfall": "ldpc",
    # gctheory.load_bounds
    "AchievedLoad": "load_bounds",
    "BRCParameters": "load_bounds",
    "LoadBound": "load_bounds",
    "LoadBoundRegimeWarning": "load_bounds",
    "achieved_load_mc": "load_bounds",
    "all_bounds": "load_bounds",
    "approximate_recovery_lower_bound": "load_bounds",
    "brc_condition_54_margin": "load_bounds",
    "brc_parameters": "load_bounds",
    "disjoint_support_columns": "load_bounds",
    "exact_recovery_lower_bound": "load_bounds",
    "frc_error_pmf": "load_bounds",
    "frc_failure_mc": "load_bounds",
    "frc_failure_probability": "load_bounds",
    "frc_group_sizes": "load_bounds",
    "frc_load": "load_bounds",
    "frc_min_load": "load_bounds",
    "group_failure_probability": "load_bounds",
    "halbawi_load": "load_bounds",
    "halbawi_max_stragglers": "load_bounds",
    "load_curves": "load_bounds",
    "matrix_union_lower_bound": "load_bounds",
    "min_load_lower_bound": "load_bounds",
    "single_column_lower_bound": "load_bounds",
    "union_lower_bound": "load_bounds",
    "worst_case_load": "load_bounds",
    "zero_column_count_pmf": "load_bounds",
    "zero_column_tail_lower_bound": "load_bounds",
    # gctheory.order_stats
    "Approximation": "order_stats",
    "InfiniteMomentWarning": "order_stats",
    "OrderStatMoments": "order_stats",
    "UnreliableMonteCarloWarning": "order_stats",
    "expected_grouped_completion": "order_stats",
    "expected_order_statistic": "order_stats",
    "exponential_log_approx": "order_stats",
    "grouped_completion_mc": "order_stats",
    "grouped_completion_moments": "order_stats",
    "halbawi_proposition1_error": "order_stats",
    "harmonic_difference": "order_stats",
    "order_statistic_mc": "order_stats",
    "order_statistic_moments": "order_stats",
    "order_statistic_reference": "order_stats",
    "order_statistic_variance": "order_stats",
    "pareto_limit": "order_stats",
    "xu_log_approx_error": "order_stats",
    # gctheory.runtime
    "OptimumF": "runtime",
    "SchemeLayout": "runtime",
    "ZHANG_SCHEMES": "runtime",
    "ZhangMetrics": "runtime",
    "halbawi_alpha_star": "runtime",
    "halbawi_approx_time": "runtime",
    "halbawi_cm_range": "runtime",
    "halbawi_expected_time": "runtime",
    "halbawi_f": "runtime",
    "halbawi_optimal_f": "runtime",
    "optimal_straggler_tolerance": "runtime",
    "scheme_expected_time": "runtime",
    "scheme_layout": "runtime",
    "scheme_time_mc": "runtime",
    "scheme_time_moments": "runtime",
    "xu_bound_B": "runtime",
    "xu_expected_time": "runtime",
    "xu_feasible_interval": "runtime",
    "xu_feasible_k_exact": "runtime",
    "xu_optimal_K": "runtime",
    "xu_optimal_p": "runtime",
    "xu_time_saving": "runtime",
    "zhang_best_groups": "runtime",
    "zhang_best_redundancy": "runtime",
    "zhang_metrics": "runtime",
    "zhang_worker_dist": "runtime",
    # gctheory.training
    "DELAY_NAMES": "training",
    "Dataset": "training",
    "DelayModel": "training",
    "DivergenceWarning": "training",
    "LogisticRegression": "training",
    "SoftmaxRegression": "training",
    "TrainingRun": "training",
    "estimate_run_metric": "training",
    "lag_select": "training",
    "lgc_compensation": "training",
    "load_digits_dataset": "training",
    "loss_band": "training",
    "make_scheme": "training",
    "parse_delay": "training",
    "partition_indices": "training",
    "reference_loss": "training",
    "repeat_runs": "training",
    "simulate": "training",
    # gctheory.tradeoff (issue 18); "tradeoff" itself is the (callable) package
    "SKappaInterval": "tradeoff",
    "TRADEOFF_AXES": "tradeoff",
    "TRADEOFF_COLUMNS": "tradeoff",
    "TRADEOFF_EFFORT": "tradeoff",
    "TRADEOFF_LEFT_OUT": "tradeoff",
    "TRADEOFF_MAX_N": "tradeoff",
    "TRADEOFF_SCHEMES": "tradeoff",
    "TradeoffTable": "tradeoff",
    "dominance": "tradeoff",
    "empirical_s_kappa_interval": "tradeoff",
    "generator_families": "tradeoff",
    "plot_tradeoff": "tradeoff",
    "resolve_delay": "tradeoff",
    "row_label": "tradeoff",
    "s_kappa_guarantee": "tradeoff",
    "tradeoff": "tradeoff",
}

__all__ = ["__version__", *_SUBMODULES, *sorted(_LAZY)]


def __getattr__(name: str) -> Any:
    if name in _SUBMODULES:
        return importlib.import_module(f"gctheory.{name}")
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'gctheory' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"gctheory.{module}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
