"""A tiny package for the difftest harness's own tests (tests/python/test_difftest.py)."""
