"""The rules of tool use (SPEC §12): names, the offer, grants, decisions, the cap."""

from __future__ import annotations

from ikgui.domain.events import Event, Kind
from ikgui.domain.settings import AgentSettings, Settings, ToolServerSettings
from ikgui.domain.state import tool_use as rules
from ikgui.domain.tools import RUNNING, ServerState, ToolInfo


def _event(n: int, kind: Kind, data: dict[str, object]) -> Event:
    return Event(id=n, conversation_id="c", kind=kind, content="", data=dict(data), created_at=n)


def _settings(**servers: ToolServerSettings) -> Settings:
    return Settings(tool_servers=dict(servers))


def test_wire_names_are_stable_and_acceptable_to_every_provider() -> None:
    assert rules.wire_name("time", "get_current_time") == "time__get_current_time"
    odd = rules.wire_name("files", "read file/ü" + "x" * 80)
    assert odd == rules.wire_name("files", "read file/ü" + "x" * 80)
    assert len(odd) <= 64 and all(c.isalnum() or c in "_-" for c in odd)
    assert odd != rules.wire_name("files", "read file/ü" + "x" * 81)


def test_the_offer_follows_the_agent_then_the_defaults_then_the_conversation() -> None:
    settings = _settings(
        time=ToolServerSettings("time", command="t"),
        git=ToolServerSettings("git", command="g"),
        off=ToolServerSettings("off", command="o", enabled=False),
    )
    assert rules.chosen(settings, None, {}) == ({"time", "git"}, set())
    settings.default_tools = ("git",)
    assert rules.chosen(settings, None, {}) == ({"git"}, set())
    settings.agents["coder"] = AgentSettings("coder", tools=("time.get_current_time",))
    assert rules.chosen(settings, "coder", {}) == (set(), {"time.get_current_time"})
    assert rules.chosen(settings, "coder", {"time": False}) == (set(), set())
    assert rules.chosen(settings, None, {"time": True, "git": False}) == ({"time"}, set())


def test_only_running_servers_tools_that_were_chosen_are_offered() -> None:
    states = [
        ServerState("time", RUNNING, (ToolInfo("time", "now"), ToolInfo("time", "convert"))),
        ServerState("git", RUNNING, (ToolInfo("git", "log"),)),
    ]
    offer = rules.offered(states, {"git"}, {"time.now"})
    assert sorted(offer) == ["git__log", "time__now"]
    wire = rules.wire_tools(offer)
    assert {t["function"]["name"] for t in wire} == {"git__log", "time__now"}
    assert all(t["function"]["parameters"]["type"] == "object" for t in wire)


def test_grants_stand_until_revoked() -> None:
    call = {"id": "a", "name": "now", "server": "time", "arguments": {}}
    events = [
        _event(1, Kind.TOOL_CALL, call),
        _event(2, Kind.TOOL_APPROVAL, {"tool_call_id": "a", "decision": "conversation"}),
    ]
    assert rules.grants(events) == {"time.now"}
    settings = _settings(time=ToolServerSettings("time", command="t", always_allow=("zone",)))
    held = rules.grants(events)
    assert rules.standing(settings, held, "time", "now") == rules.Decision(
        "conversation", "conversation"
    )
    assert rules.standing(settings, held, "time", "zone") == rules.Decision("always", "config")
    assert rules.standing(settings, held, "time", "other") is None
    revoke = {"command": "tools", "revoke": "time", "ok": True}
    assert rules.grants([*events, _event(3, Kind.COMMAND, revoke)]) == set()


def test_a_denial_tells_the_model_the_users_note() -> None:
    denied = rules.Decision(rules.DENY, note="not on prod")
    assert not denied.allowed
    assert denied.denied_output() == "Denied by the user: not on prod"
    assert denied.data("a") == {
        "tool_call_id": "a",
        "decision": "deny",
        "by": "user",
        "note": "not on prod",
    }


def test_output_is_capped_for_the_model_with_a_line_saying_so() -> None:
    assert rules.capped("short", 1) == "short"
    long = "é" * 3000  # 6,000 bytes
    cut = rules.capped(long, 1)
    assert cut.startswith("é" * 512) and "more bytes of this tool's output were cut" in cut
    assert len(cut.split("\n")[0].encode()) <= 1024


def test_allow_patterns() -> None:
    assert rules.matches("time.*", "time", "now")
    assert rules.matches("time.now", "time", "now")
    assert not rules.matches("time.now", "time", "zone")
    assert not rules.matches("tim.*", "time", "now")
