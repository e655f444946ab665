"""Lyra pipelines."""
