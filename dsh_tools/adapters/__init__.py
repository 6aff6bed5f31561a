"""Adapters between dsh-tools records and model APIs' wire shapes (no network)."""
