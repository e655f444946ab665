"""Lyra storage."""
