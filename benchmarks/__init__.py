"""Benchmarks: every performance goal measured against baselines timed in the same run.

Run ``python -m benchmarks`` (full) or ``python -m benchmarks --quick``. Nothing here is a test
assertion; numbers are reported, with the target and whether it is met.
"""
