"""One remedy, two renderings (issue 10, item 7): the command line keeps its words, the
window names its own controls, and the stored error event serves both."""

from __future__ import annotations

import asyncio
import string

import pytest

from ikgui.domain.errors import ProviderError
from ikgui.domain.session.session import Session
from ikgui.domain.settings import Settings
from ikgui.domain.streaming import CATEGORIES
from ikgui.domain.text.advice import ADVICE, HEADLINES, Advice, advice, error_text, headline
from tests.support.memstore import MemoryStore
from tests.support.scripted import ScriptedProvider

#: What only the command line may say: its commands, flags and config file sections.
CLI_ONLY = (
    "ikgui keys",
    "`ikgui",
    "config.toml",
    "[providers",
    "[defaults",
    "[limits]",
    "-p)",
    "/model",
    "/rewind",
    "/clear",
)
FACTS = {
    "provider": "work",
    "model": "gpt-x",
    "wait": "20 seconds",
    "kinds": "openai, ollama",
    "setting": "reply_mb",
    "kind": "images",
}


@pytest.mark.parametrize("key", sorted(ADVICE))
def test_every_remedy_has_both_wordings_and_the_window_s_names_no_cli(key: str) -> None:
    cli, window = advice(key, "cli", FACTS), advice(key, "window", FACTS)
    assert cli and window, key
    for text in (cli, window):
        assert text[0].isupper() and text.endswith((".", "?", ")")), text
        assert "{" not in text, text
    assert not any(words in window for words in CLI_ONLY), window
    needs = {f for _, f, _, _ in string.Formatter().parse(ADVICE[key][1]) if f}
    assert needs <= set(FACTS), needs


#: The window's words, which a command-line user has no use for.
WINDOW_ONLY = ("Settings", "toolbar", "→")


@pytest.mark.parametrize("key", sorted(ADVICE))
def test_the_command_line_s_wording_names_no_window_control(key: str) -> None:
    """Issue 20 (wording): "in Settings" is a window term; the command line names the
    config file or its own commands."""
    cli = advice(key, "cli", FACTS)
    assert not any(words in cli for words in WINDOW_ONLY), cli


def test_a_connection_error_tells_a_command_line_user_where_the_url_is() -> None:
    assert advice("start_server", "cli", FACTS) == (
        "Check that the server is running and that base_url under [providers.work] in "
        "config.toml is right."
    )
    spaced = advice("check_url_v1", "cli", {"provider": 'lm "studio"'})
    assert '[providers."lm \\"studio\\""]' in spaced
    assert advice("start_ollama", "cli", FACTS) == (
        "Is Ollama running? Start it with `ollama serve`."
    )
    assert '"ollama serve"' in advice("start_ollama", "window", FACTS)


def test_the_window_names_its_controls() -> None:
    assert advice("set_key", "window", FACTS) == "Open Settings → Providers → API key to set it."
    assert advice("set_key", "cli", FACTS) == ("Set it with `ikgui keys set work`.")
    assert "config.toml (or choose another with -p)" in advice("configure_provider", "cli", FACTS)
    assert advice("configure_provider", "window", FACTS) == (
        "Add it in Settings → Providers, or choose another provider in Settings → General."
    )


def test_an_error_says_what_then_the_remedy_per_audience() -> None:
    error = ProviderError(
        "The server needs an API key.", "auth", 401, None, Advice("set_key", {"provider": "work"})
    )
    assert error.message == "The server needs an API key. Set it with `ikgui keys set work`."
    assert error.line == f"Error: {error.message}"
    assert (
        error.window_text
        == "The server needs an API key. Open Settings → Providers → API key to set it."
    )
    plain = ProviderError("Cut.", "cut")
    assert plain.message == plain.window_text == "Cut."
    assert plain.event_data() == {"category": "cut", "status": None}


def test_the_stored_event_keeps_the_cli_sentence_and_gives_the_window_its_own() -> None:
    store = MemoryStore()
    failure = ProviderError(
        "The server at http://h/v1 needs an API key (HTTP 401).",
        "auth",
        401,
        None,
        Advice("set_key", {"provider": "work"}),
    )
    settings = Settings(default_provider="local", default_model="mock-gpt")
    session = Session(store, settings, provider_factory=ScriptedProvider([failure]))
    with pytest.raises(ProviderError):
        asyncio.run(session.send("hi"))
    error = store.events(session.conversation.id)[-1]
    assert error.content == failure.message  # ``conv show`` reads it as before
    assert error.data == {
        "category": "auth",
        "status": 401,
        "advice": "set_key",
        "facts": {"provider": "work"},
    }
    assert error_text(error.content, error.data, "cli") == failure.message
    assert error_text(error.content, error.data, "window") == failure.window_text


def test_older_or_reworded_events_are_shown_as_stored() -> None:
    old = "The server said no; set it with `ikgui keys set work` or in Settings."
    assert error_text(old, {"category": "auth", "status": 401}, "window") == old
    assert error_text(old, {"advice": "set_key", "facts": {"provider": "work"}}, "window") == old
    assert error_text(old, {"advice": "from-a-newer-version"}, "window") == old
    assert error_text(old, {"advice": "set_key", "facts": "junk"}, "window") == old
    assert advice("wait", "window", {}) == ""  # a fact missing: no half sentence


def test_every_category_has_a_heading() -> None:
    assert set(HEADLINES) == set(CATEGORIES)
    assert headline("server_error") == "server error" and headline("overloaded") == "overloaded"
    assert headline(None) == headline("unknown") == ""
    # An older event called a 500 "overloaded": its heading says what it was.
    assert headline("overloaded", 500) == "server error"
    assert headline("overloaded", 529) == headline("overloaded", None) == "overloaded"


def test_the_settings_page_that_fixes_a_failure() -> None:
    from ikgui.domain.text.advice import SETTINGS_PAGES, settings_page

    assert set(SETTINGS_PAGES) <= set(ADVICE)
    for key, page in SETTINGS_PAGES.items():  # each names that page's controls
        assert f"Settings → {page.capitalize()}" in advice(key, "window", FACTS), key
    assert settings_page({"advice": "set_key"}) == "providers"
    assert settings_page({"advice": "pick_model"}) == "general"
    assert settings_page({"advice": "try_again", "category": "server_error"}) is None
    assert settings_page({"category": "auth", "status": 401}) == "providers"  # older event
    assert settings_page({"category": "overloaded", "status": 503}) is None
