"""Benchmarks and the matching-quality evaluation (make bench, make eval)."""
