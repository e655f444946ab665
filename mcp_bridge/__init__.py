"""Lyra mcp_bridge."""
