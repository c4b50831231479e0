"""Permission decisions in the loop: asking, the answers, previews and paths outside the
workspace; every decision is logged to the session."""

from __future__ import annotations

from pathlib import Path

from agent.events import Notice, PermissionDecision, PermissionRequest
from agent.loop.calls import NO_RETRY, USER_DENIED
from agent.model.scripted import call, calls, text
from agent.sessions.replay import read_records
from tests.agent.loop_kit import Face, make_agent, results


async def test_permission_flows(ws: Path) -> None:
    reply = calls(
        ("write", {"path": "once.txt", "content": "1"}, "p1"),
        ("write", {"path": "no.txt", "content": "2"}, "p2"),
        ("write", {"path": "told.txt", "content": "3"}, "p3"),
        ("bash", {"command": "git status"}, "p4"),
    )
    again = call("bash", {"command": "git status --short"}, "p5")
    face = Face(
        PermissionDecision("allow_once"),
        PermissionDecision("deny"),
        PermissionDecision("deny_with_message", "use notes.txt instead"),
        PermissionDecision("allow_always"),
    )
    agent, _ = make_agent(ws, [reply, again, text("ok")], mode="ask")
    await agent.run_turn("write files", face)

    asked = face.of(PermissionRequest)
    assert [r.call_id for r in asked] == ["p1", "p2", "p3", "p4"]  # p5 was allowed by the new rule
    assert asked[0].subject == "once.txt" and "once.txt" in asked[0].preview
    assert asked[3].preview == "git status"
    assert (
        (ws / "once.txt").exists()
        and not (ws / "no.txt").exists()
        and not (ws / "told.txt").exists()
    )
    by_id = {m["tool_call_id"]: m["content"] for m in agent.messages if m["role"] == "tool"}
    assert by_id["p2"] == USER_DENIED + NO_RETRY  # the user's decision, no "fix and retry"
    assert by_id["p3"] == f"{USER_DENIED} The user said: use notes.txt instead"
    assert not by_id["p5"].startswith("Error")
    logged = [r for r in read_records(agent.session.path) if r["type"] == "permission"]
    assert [r["verdict"] for r in logged] == ["allow", "deny", "deny", "allow", "allow"]
    assert "bash(git status" in logged[3]["reason"]


async def test_a_write_or_edit_is_previewed_as_the_diff_it_makes(ws: Path) -> None:
    (ws / "app.py").write_text("a = 1\nb = 2\n")
    reply = calls(
        ("write", {"path": "app.py", "content": "a = 1\nb = 3\n"}, "w"),
        ("edit", {"path": "app.py", "old": "a = 1", "new": "a = 0"}, "e"),
    )
    face = Face(PermissionDecision("deny"), PermissionDecision("deny"))
    agent, _ = make_agent(ws, [call("read", {"path": "app.py"}), reply, text("ok")], mode="ask")
    await agent.run_turn("change app.py", face)

    write, edit = face.of(PermissionRequest)
    assert "--- a/app.py" in write.preview and "-b = 2\n+b = 3" in write.preview
    assert "-a = 1\n+a = 0\n b = 2" in edit.preview  # the file's context around the change
    assert (ws / "app.py").read_text() == "a = 1\nb = 2\n"  # both denied


async def test_an_approved_path_outside_the_workspace_can_be_used(ws: Path) -> None:
    outside = ws.parent / "notes.txt"
    outside.write_text("remember\n")
    face = Face(PermissionDecision("allow_once"))
    agent, _ = make_agent(ws, [call("read", {"path": str(outside)}), text("ok")], mode="ask")
    await agent.run_turn("read my notes", face)

    assert len(face.of(PermissionRequest)) == 1
    assert results(agent) == ["1\tremember"]


async def test_headless_style_denial_in_plan_mode_never_asks(ws: Path) -> None:
    agent, _ = make_agent(
        ws, [call("write", {"path": "a", "content": "b"}), text("planned")], mode="plan"
    )
    face = Face()
    finished = await agent.run_turn("x", face)
    assert face.of(PermissionRequest) == []
    assert not (ws / "a").exists()
    assert results(agent)[0].startswith("Error: permission denied")
    assert finished.final_text == "planned"


async def test_a_denial_never_invites_a_retry_and_the_model_may_go_on(ws: Path) -> None:
    (ws / "b.txt").write_text("bee\n")
    script = [
        call("bash", {"command": "rm -rf build"}, "r"),
        call("read", {"path": "b.txt"}),
        text("ok"),
    ]
    agent, model = make_agent(ws, script, mode="ask")
    face = Face(PermissionDecision("deny"))
    finished = await agent.run_turn("clean up, then read b.txt", face)
    told = results(agent)
    assert "try again" not in told[0] and "Fix the call" not in told[0]
    assert told[1] == "1\tbee" and finished.final_text == "ok" and finished.stop_reason == "done"


async def test_a_denied_call_asked_for_again_stops_the_turn_without_asking(ws: Path) -> None:
    again = call("bash", {"command": "rm -rf build"}, "r2")
    script = [call("bash", {"command": "rm -rf build"}, "r1"), again, again, text("never")]
    agent, model = make_agent(ws, script, mode="ask")
    face = Face(PermissionDecision("deny_with_message", "keep build"))
    finished = await agent.run_turn("clean up", face)
    assert len(face.of(PermissionRequest)) == 1  # the user is not asked twice
    assert (
        finished.stop_reason == "done" and "asked again for what you denied" in finished.final_text
    )
    assert "bash rm -rf build" in finished.final_text and len(model.replies) == 2  # no more steps
    assert results(agent)[1] == USER_DENIED + NO_RETRY
    assert any("Stopped" in n.message for n in face.of(Notice))
    logged = [r for r in read_records(agent.session.path) if r["type"] == "permission"]
    assert [r["reason"] for r in logged] == [
        "the user said: keep build",
        "user: deny (asked again)",
    ]
    second = await agent.run_turn("ok, remove it", Face(PermissionDecision("allow_once")))
    assert second.stop_reason == "done"  # a new turn asks again: the user's new word decides
