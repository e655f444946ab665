"""Lyra config."""
