"""The client library's provider adapters, as far as strict nulls are concerned.

Two facts per adapter, taken from the seed's pull request and its review:

- ``widens``: its strict requests add null to optional fields, and its live stream removes
  those nulls again on the end of a tool call (OpenAI, and OpenRouter and Mistral, which
  "widen nulls in the same way"; Anthropic does not widen).
- ``resume_hook``: it implements the new ``normalizeToolInput`` hook, so a call resumed from
  history is normalized too. The pull request added it to the two OpenAI base classes only; it
  reverted OpenRouter and Mistral ("a later PR can cover those adapters"). That is a known gap,
  kept here on purpose so the suite shows it instead of hiding it. The old pipeline has no hook
  at all and never reads this field.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["ADAPTERS", "Adapter", "adapter_for"]


@dataclass(frozen=True)
class Adapter:
    provider: str
    widens: bool
    resume_hook: bool


ADAPTERS: dict[str, Adapter] = {
    "openai": Adapter("openai", widens=True, resume_hook=True),
    "openrouter": Adapter("openrouter", widens=True, resume_hook=False),
    "mistral": Adapter("mistral", widens=True, resume_hook=False),
    "anthropic": Adapter("anthropic", widens=False, resume_hook=False),
}


def adapter_for(provider: str) -> Adapter:
    """The adapter for ``provider``; ValueError naming the known ones otherwise."""
    if provider not in ADAPTERS:
        known = ", ".join(sorted(ADAPTERS))
        raise ValueError(f"openai_strict_resume: provider {provider!r}: expected one of {known}")
    return ADAPTERS[provider]
