"""Lyra actors."""
