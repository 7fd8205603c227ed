"""Helpers every stage shares: safe readers, schema checks, redaction, the process supervisor."""

__all__: list[str] = []
