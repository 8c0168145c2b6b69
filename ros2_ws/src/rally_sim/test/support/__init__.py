"""Helpers shared by the rally_sim tests."""
