"""Settings every test module shares.

Hypothesis judges each example by wall-clock time by default (a 200 ms deadline, and a
health check that calls data generation "too slow"): on a loaded machine both fail tests
that are correct. The default run asks for no wall-clock threshold, so both are off here;
a test that must bound its time does so in CPU time.
"""

from __future__ import annotations

from hypothesis import HealthCheck, settings

settings.register_profile("gctheory", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("gctheory")
