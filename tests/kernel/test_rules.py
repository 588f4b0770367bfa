"""Rules: .omp/rules plus the rules other agents' users already have (.cursor/rules,
.cursorrules, .windsurf/rules, .clinerules, .github/copilot-instructions.md), each from a
fixture directory. Always-apply rules go into the system prompt, described rules are
listed for the model to read, glob rules are attached to the result of a tool that read
or edited a matching file."""

from __future__ import annotations

from pathlib import Path

import omp
from doubles import texts
from omp import front_matter_list, split_front_matter
from omp_context_sources.rules import glob_matcher


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def system_of(make_session, omp_harness, **options) -> str:
    session, provider = make_session([{"text": "ok"}], **options)
    omp_harness.run(session, "hi")
    return provider.requests[0].system_prompt


def test_omp_rules_without_front_matter_always_apply(make_session, omp_harness):
    write(omp_harness.cwd / ".omp" / "rules" / "style.md", "Indent with tabs, never spaces.\n")
    write(omp_harness.agent_dir / "rules" / "mine.md", "Answer in British English.\n")
    system = system_of(make_session, omp_harness)
    assert "Indent with tabs, never spaces." in system
    assert "Answer in British English." in system
    assert system.index("# Rules") < system.index("Current date:")


def test_cursor_mdc_front_matter_decides_how_a_rule_applies(make_session, omp_harness):
    rules = omp_harness.cwd / ".cursor" / "rules"
    write(rules / "always.mdc", "---\nalwaysApply: true\n---\nRun ruff before committing.\n")
    write(
        rules / "testing.mdc",
        "---\ndescription: How tests are written here\nglobs:\nalwaysApply: false\n---\n"
        "Use pytest fixtures, never unittest classes.\n",
    )
    write(
        rules / "ts.mdc",
        "---\ndescription:\nglobs: src/**/*.ts,*.{tsx,jsx}\nalwaysApply: false\n---\nNo any.\n",
    )
    write(rules / "manual.mdc", "---\ndescription:\nglobs:\nalwaysApply: false\n---\nSecret.\n")
    system = system_of(make_session, omp_harness)
    assert "Run ruff before committing." in system
    assert "testing: How tests are written here" in system
    assert str(rules / "testing.mdc") in system
    assert "Use pytest fixtures" not in system  # read on demand, not inlined
    assert "No any." not in system  # attached when a matching file is touched
    assert "src/**/*.ts" in system and str(rules / "ts.mdc") in system
    assert "Secret." not in system and str(rules / "manual.mdc") in system


def test_legacy_single_file_rules_of_other_agents(make_session, omp_harness):
    cwd = omp_harness.cwd
    write(cwd / ".cursorrules", "Cursor legacy rule.\n")
    write(cwd / ".windsurf" / "rules" / "w.md", "Windsurf rule.\n")
    write(cwd / ".clinerules", "Cline rule.\n")
    write(cwd / ".github" / "copilot-instructions.md", "Copilot instructions.\n")
    system = system_of(make_session, omp_harness)
    for text in ("Cursor legacy rule.", "Windsurf rule.", "Cline rule.", "Copilot instructions."):
        assert text in system


def test_clinerules_folder_and_windsurf_triggers(make_session, omp_harness):
    cwd = omp_harness.cwd
    write(cwd / ".clinerules" / "a.md", "Cline folder rule.\n")
    write(
        cwd / ".windsurf" / "rules" / "decide.md",
        "---\ntrigger: model_decision\ndescription: Database migrations\n---\nUse alembic.\n",
    )
    system = system_of(make_session, omp_harness)
    assert "Cline folder rule." in system
    assert "decide: Database migrations" in system and "Use alembic." not in system


def test_rules_of_the_repository_root_apply_in_a_subfolder(make_session, omp_harness):
    repo = omp_harness.cwd
    (repo / ".git").mkdir()
    write(repo / ".omp" / "rules" / "root.md", "Rule at the repository root.\n")
    sub = repo / "pkg" / "sub"
    sub.mkdir(parents=True)
    omp_harness.cwd = sub
    assert "Rule at the repository root." in system_of(make_session, omp_harness)


def test_the_first_rule_of_a_name_wins(make_session, omp_harness):
    write(omp_harness.cwd / ".omp" / "rules" / "style.md", "The project's style.\n")
    write(omp_harness.cwd / ".cursor" / "rules" / "style.mdc", "Cursor's style.\n")
    system = system_of(make_session, omp_harness)
    assert "The project's style." in system and "Cursor's style." not in system


def test_no_rules_flag_and_setting(make_session, omp_harness):
    write(omp_harness.cwd / ".omp" / "rules" / "style.md", "Indent with tabs.\n")
    assert "Indent with tabs." not in system_of(make_session, omp_harness, flags={"no-rules": True})
    write(omp_harness.agent_dir / "settings.json", '{"rules": {"enabled": false}}')
    assert "Indent with tabs." not in system_of(make_session, omp_harness)


def test_a_plugin_adds_rule_paths_through_resources_discover(make_session, omp_harness):
    extra = write(omp_harness.root / "shared-rules" / "team.md", "Team rule from a plugin.\n")
    seen = []

    class Contributor:
        @omp.hookimpl
        def omp_resources_discover(self, event):
            seen.append(list(event.rule_paths))
            return {"rule_paths": [str(extra.parent)]}

    write(omp_harness.cwd / ".omp" / "rules" / "style.md", "Project rule.\n")
    system = system_of(make_session, omp_harness, plugins=[Contributor()])
    assert "Team rule from a plugin." in system
    assert seen == [[str(omp_harness.cwd / ".omp" / "rules")]]  # built-in folders first


def _read_twice_session(make_session, omp_harness, path: str):
    calls = [
        {"calls": [("read", {"path": path})]},
        {"calls": [("read", {"path": path})]},
        {"text": "done"},
    ]
    return make_session(calls)


def test_a_glob_rule_is_attached_once_when_a_matching_file_is_read(make_session, omp_harness):
    cwd = omp_harness.cwd
    write(
        cwd / ".cursor" / "rules" / "ts.mdc",
        "---\nglobs: src/**/*.ts\nalwaysApply: false\n---\nNever use any.\n",
    )
    write(cwd / ".cursor" / "rules" / "py.mdc", "---\nglobs: ['*.py']\n---\nType hints.\n")
    write(cwd / "src" / "app" / "main.ts", "let x = 1;\n")
    session, provider = _read_twice_session(make_session, omp_harness, "src/app/main.ts")
    omp_harness.run(session, "look at main.ts")
    after_first = texts(provider.requests[1])[-1]
    assert "let x = 1;" in after_first and "Never use any." in after_first
    assert "Type hints." not in after_first
    after_second = texts(provider.requests[2])[-1]
    assert "Never use any." not in after_second  # once per session


def test_a_glob_without_a_slash_matches_the_file_name_anywhere(make_session, omp_harness):
    cwd = omp_harness.cwd
    write(cwd / ".omp" / "rules" / "py.md", "---\nglobs: '*.py'\n---\nType hints always.\n")
    write(cwd / "deep" / "er" / "mod.py", "x = 1\n")
    session, provider = _read_twice_session(make_session, omp_harness, "deep/er/mod.py")
    omp_harness.run(session, "go")
    assert "Type hints always." in texts(provider.requests[1])[-1]


def test_glob_matching():
    match = glob_matcher(["src/**/*.ts", "*.{tsx,jsx}", "docs/*.md"])
    assert match("src/a.ts") and match("src/x/y/a.ts") and match("lib/deep/Button.tsx")
    assert match("docs/index.md") and not match("docs/sub/index.md")
    assert not match("test/a.ts") and not match("src/a.tsx.bak")


def test_front_matter_forms():
    fields, body = split_front_matter(
        "---\nname: pdf\ndescription: >\n  Long text\n  folded\nglobs:\n  - '*.py'\n"
        "  - src/**\nalwaysApply: true\n---\nBody\n"
    )
    assert fields == {
        "name": "pdf",
        "description": "Long text folded",
        "globs": ["*.py", "src/**"],
        "alwaysApply": True,
    }
    assert body == "Body\n"
    assert split_front_matter("no front matter") == ({}, "no front matter")
    assert front_matter_list("*.ts, *.{tsx,jsx}") == ["*.ts", "*.{tsx,jsx}"]


def test_a_resumed_session_does_not_attach_a_rule_it_already_has(make_session, omp_harness):
    cwd = omp_harness.cwd
    write(cwd / ".omp" / "rules" / "py.md", "---\nglobs: '*.py'\n---\nType hints always.\n")
    write(cwd / "mod.py", "x = 1\n")
    path = omp_harness.root / "s.jsonl"
    read = {"calls": [("read", {"path": "mod.py"})]}
    session, _ = make_session([read, {"text": "ok"}], session_path=str(path))
    omp_harness.run(session, "first")
    session, provider = make_session([read, {"text": "ok"}], session_path=str(path))
    omp_harness.run(session, "again")
    last = texts(provider.requests[1])[-1]
    assert "x = 1" in last and "Type hints always." not in last


def test_a_glob_rule_is_attached_when_a_matching_file_is_written(make_session, omp_harness):
    cwd = omp_harness.cwd
    write(cwd / ".cursor" / "rules" / "ts.mdc", "---\nglobs: src/**/*.ts\n---\nNever use any.\n")
    calls = [
        {"calls": [("write", {"path": "src/new.ts", "content": "let y = 2;\n"})]},
        {"text": "done"},
    ]
    session, provider = make_session(calls)
    omp_harness.run(session, "create src/new.ts")
    assert (cwd / "src" / "new.ts").read_text() == "let y = 2;\n"
    assert "Never use any." in texts(provider.requests[1])[-1]
