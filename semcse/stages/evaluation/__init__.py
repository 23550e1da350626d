"""Metrics, benchmark suites, tables and plots."""
