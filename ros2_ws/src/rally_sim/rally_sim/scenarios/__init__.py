"""Scenarios: their files, their metrics and verdicts, and their runs."""
