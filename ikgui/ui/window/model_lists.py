"""What the model selector lists, kept true (issue 20, item 2): every configured
provider's models, asked for on the window's loop (never blocking it), shown grouped
under the open conversation's provider and model.

The selector is filled again when the open conversation changes (the chrome's refresh),
when the settings change (providers added, removed, renamed or pointed elsewhere: their
lists are asked for again), and when a provider's list arrives. A list that could not be
fetched is asked for again when a reply from that provider ends; every list is asked for
again when the selector opens.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterable
from typing import TYPE_CHECKING

from ikgui.domain.errors import ProviderError
from ikgui.domain.settings import ProviderSettings, Settings
from ikgui.domain.state.catalog import Listing, model_groups, shown_model

if TYPE_CHECKING:
    from ikgui.domain.session.session import Session
    from ikgui.ui.window.collaborators import Spawner
    from ikgui.ui.window.model_box import ModelBox


class ModelLists:
    def __init__(
        self,
        session: Session,
        box: ModelBox,
        spawn: Spawner,
        fetch: Callable[[str], Awaitable[list[str]]],
        timeout: float,
        retire_banner: Callable[[], None],
    ) -> None:
        self.session = session
        self.box = box
        self.spawn = spawn
        self.fetch = fetch
        self.timeout = timeout
        #: Takes down the start-up banner about the model server (the selector lists it).
        self.retire_banner = retire_banner
        #: Called when a list arrives (the window's chrome redraws what it shows).
        self.on_change: Callable[[], None] = lambda: None
        #: What each provider's last answer was (no entry: never asked).
        self.listings: dict[str, Listing] = {}
        #: What the start-up banner says of a provider whose list failed.
        self.banners: dict[str, str] = {}
        self._asking: dict[str, asyncio.Task[None]] = {}
        self._configs: dict[str, ProviderSettings] = dict(session.settings.providers)
        box.opening.connect(self.ask_again)

    # -- asking -------------------------------------------------------------------------
    def ask(self, names: Iterable[str] | None = None) -> list[asyncio.Task[None]]:
        """Ask ``names`` (default: every configured provider, and the open
        conversation's even if it is not: it says why in the banner) for their models,
        each on its own task; a provider already being asked is not asked twice."""
        session = self.session
        wanted = list(dict.fromkeys([*session.settings.providers, session.provider]))
        tasks = []
        for name in wanted if names is None else names:
            if name not in wanted:
                continue
            task = self._asking.get(name)
            if task is None or task.done():
                task = self.spawn(self._fetch(name), f"models:{name}")
                self._asking[name] = task
            tasks.append(task)
        return tasks

    async def ask_all(self) -> None:
        """Ask every configured provider and wait for their answers (or time-outs)."""
        tasks = self.ask()
        if tasks:
            await asyncio.wait(tasks)

    def ask_again(self) -> None:
        """The selector opens: ask every provider again (a model pulled or removed since
        shows; a server started since lists its models). What is known stays listed
        meanwhile, and the list is rebuilt only where an answer differs."""
        self.ask()

    def reply_ended(self) -> None:
        """A reply ended: if its provider's list is not known, it answers now."""
        provider = self.session.provider
        listing = self.listings.get(provider)
        if listing is not None and listing.models is None:
            self.ask([provider])

    async def _fetch(self, name: str) -> None:
        try:
            models = await asyncio.wait_for(self.fetch(name), self.timeout)
        except ProviderError as exc:
            self.listings[name] = Listing(None, exc.window_text)
            self.banners[name] = (
                f"{exc.window_text} Until a model server answers, ikgui can browse and "
                "search but not send."
            )
        except TimeoutError:
            why = f"The model server for {name} did not answer within {self.timeout:g} s."
            self.listings[name] = Listing(None, why)
            self.banners[name] = (
                f"{why} Check it is running, or choose another provider in Settings → General."
            )
        else:
            self.listings[name] = Listing(tuple(models))
            self.banners.pop(name, None)
        self.on_change()  # the selector, and the status bar's model with it

    # -- settings -----------------------------------------------------------------------
    def settings_changed(self, settings: Settings) -> None:
        """Forget what removed or changed providers listed, and ask them all again."""
        for name in {*self.listings, *self._asking}:
            if settings.providers.get(name) != self._configs.get(name):
                self.listings.pop(name, None)
                self.banners.pop(name, None)
                task = self._asking.pop(name, None)
                if task is not None:
                    task.cancel()  # (an answer from the old server)
        self._configs = dict(settings.providers)
        self.show()
        self.ask()

    # -- showing ------------------------------------------------------------------------
    def shown_model(self) -> str | None:
        """The open conversation's model, else the one its next request will use (its
        provider's first); ``None``: not known yet."""
        session = self.session
        return shown_model(self.listings, session.provider, session.model)

    def show(self) -> None:
        """Fill the selector for the open conversation (cheap when nothing changed)."""
        session = self.session
        provider, model = session.provider, session.model
        groups = model_groups(session.settings.providers, self.listings, provider, model)
        self.box.show_groups(groups, provider, self.shown_model())
        if self.listings.get(provider, Listing()).models is not None:
            self.retire_banner()  # (about a server it no longer uses)
