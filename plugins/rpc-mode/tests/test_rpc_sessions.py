"""Listing sessions over RPC (``list_sessions``, an addition to omp's protocol): what
``/resume`` and ``omp sessions`` list, for a client's own session picker."""

from __future__ import annotations


def test_list_sessions_lists_this_directorys_sessions_newest_first(fresh_rpc):
    rpc = fresh_rpc()
    assert rpc.ok("list_sessions") == {"sessions": []}
    rpc.run("first question")
    first = rpc.ok("get_state")["sessionFile"]
    rpc.ok("new_session")
    rpc.run("second question")
    second = rpc.ok("get_state")["sessionFile"]
    rpc.ok("set_session_name", name="Named one")

    listed = rpc.ok("list_sessions")["sessions"]
    assert [s["path"] for s in listed] == [second, first]
    newest = listed[0]
    assert newest["title"] == "Named one" and newest["firstMessage"] == "second question"
    assert newest["messageCount"] == 2 and newest["cwd"] == str(rpc.cwd)
    assert set(newest) >= {"id", "created", "modified", "name", "parentSession"}
    assert [s["path"] for s in rpc.ok("list_sessions", search="FIRST")["sessions"]] == [first]
    assert len(rpc.ok("list_sessions", all=True)["sessions"]) == 2


def test_list_sessions_refuses_a_bad_search_in_one_line(fresh_rpc):
    rpc = fresh_rpc()
    answer = rpc.request("list_sessions", search=5)
    assert answer["success"] is False and "search" in answer["error"]
    assert "\n" not in answer["error"]
