"""The models on offer, grouped by provider (SPEC §8): what ``/model provider/model``
means, and what the window's model selector lists.

A conversation belongs to one provider and one model; a choice is always the pair, so a
model is never offered (nor taken) under another provider than the one that listed it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from ikgui.domain.settings import Settings

#: What a group says when its list is not known (yet).
LOADING = "Asking for its models…"
UNAVAILABLE = "Model list unavailable"
NOT_CONFIGURED = "Not configured: add it in Settings → Providers"


@dataclass(frozen=True)
class Listing:
    """What is known of one provider's models: the list it gave, or why there is none
    (``models`` and ``problem`` both ``None``: still being asked)."""

    models: tuple[str, ...] | None = None
    problem: str | None = None


@dataclass(frozen=True)
class ModelGroup:
    """One provider's heading and the models under it."""

    provider: str
    models: tuple[str, ...]
    #: A line under the heading when its list is not known: ``LOADING``, ``UNAVAILABLE``
    #: or ``NOT_CONFIGURED`` (``None``: listed).
    note: str | None = None
    #: Why the list is unavailable (the provider's error), for a tooltip.
    detail: str = ""


def model_groups(
    providers: Iterable[str],
    listings: Mapping[str, Listing],
    provider: str,
    model: str | None,
) -> list[ModelGroup]:
    """The groups a model selector lists: each configured provider (in ``providers``'
    order) with its models, the open conversation's ``provider`` too when it is no longer
    configured, and its ``model`` always listed under it (a list that lacks it, or none)."""
    names = list(providers)
    groups = []
    for name in [*names, *([provider] if provider not in names else [])]:
        listing = listings.get(name, Listing())
        models = list(listing.models or ())
        if name == provider and model and model not in models:
            models.insert(0, model)
        if name not in names:
            note: str | None = NOT_CONFIGURED
        elif listing.models is not None:
            note = None
        else:
            note = UNAVAILABLE if listing.problem is not None else LOADING
        groups.append(ModelGroup(name, tuple(models), note, listing.problem or ""))
    return groups


def shown_model(listings: Mapping[str, Listing], provider: str, model: str | None) -> str | None:
    """The model a selector shows as chosen: the conversation's, else the one its next
    request will use (the provider's first, as a send without a model does)."""
    if model:
        return model
    listed = listings.get(provider, Listing()).models
    return listed[0] if listed else None


def parse_choice(
    text: str, settings: Settings, provider: str, models: Sequence[str] | None
) -> tuple[str, str]:
    """``/model NAME`` or ``/model PROVIDER/NAME`` → (provider, model).

    A model name may hold slashes itself (``meta-llama/llama-3.1-8b``): the text is a
    move to another provider only when it starts with a configured provider's name and
    a slash, and is not a model the current ``provider`` lists (``models``)."""
    head, slash, rest = text.partition("/")
    if slash and rest and head in settings.providers and not (models and text in models):
        return head, rest
    return provider, text
