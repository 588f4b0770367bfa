"""``ast_grep``: structural search across files, grouped by file, with captures."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ast_project import call, text


def test_finds_a_call_pattern_across_python_files_with_captures(
    omp_harness: Any, project: Path
) -> None:
    (end,) = call(omp_harness, ("ast_grep", {"pat": "log($$$ARGS)", "lang": "python"}))
    assert not end.is_error
    assert text(end) == (
        "# app/\n"
        "## main.py\n"
        "*4|log('start', level=1)\n"
        "  meta: ARGS='start', level=1\n"
        "*6|log(argv[0])\n"
        "  meta: ARGS=argv[0]\n"
        "## util.py\n"
        "*5|log('loaded')\n"
        "  meta: ARGS='loaded'"
    )
    details = end.result["details"]
    assert (details["matchCount"], details["fileCount"]) == (3, 2)
    # build/ is ignored by .gitignore; README.md and index.ts are not Python
    assert details["filesSearched"] == 3


def test_two_captures_and_a_typescript_file_by_extension(omp_harness: Any, project: Path) -> None:
    (pair, ts, fn) = call(
        omp_harness,
        ("ast_grep", {"pat": "log($MSG, $$$REST)", "path": "app/*.py"}),
        ("ast_grep", {"pat": "log($$$ARGS)", "path": "web"}),
        ("ast_grep", {"pat": "function $NAME($$$P): $R { $$$BODY }", "path": "web/*.ts"}),
    )
    assert text(pair) == (
        "# app/\n## main.py\n*4|log('start', level=1)\n  meta: MSG='start', REST=level=1"
    )
    assert (
        text(ts)
        == "# web/\n## index.ts\n*3|log('run', items.length)\n  meta: ARGS='run', items.length"
    )
    assert text(fn).splitlines() == [
        "# web/",
        "## index.ts",
        "*2|function run(items: string[]): void {",
        " 3|  log('run', items.length);",
        " 4|}",
        "  meta: BODY=log('run', items.length);, NAME=run, P=items: string[], R=void",
    ]


def test_a_single_file_has_no_header_and_limit_says_how_many_more(
    omp_harness: Any, project: Path
) -> None:
    (one, paged, rest) = call(
        omp_harness,
        ("ast_grep", {"pat": "log($$$)", "path": "app/util.py"}),
        ("ast_grep", {"pat": "log($$$)", "path": "app", "limit": 2}),
        ("ast_grep", {"pat": "log($$$)", "path": "app", "limit": 2, "skip": 2}),
    )
    assert text(one) == "*5|log('loaded')"
    assert text(paged).splitlines() == [
        "# app/",
        "## main.py",
        "*4|log('start', level=1)",
        "*6|log(argv[0])",
        "",
        "1 more match not shown (3 matches in 2 files); narrow path, or pass skip=2 "
        "for the next page.",
    ]
    assert text(rest) == "# app/\n## util.py\n*5|log('loaded')"
    assert paged.result["details"]["limitReached"] is True


def test_no_match_and_bad_input_are_one_line_answers(omp_harness: Any, project: Path) -> None:
    none, twodollar, missing, lang = call(
        omp_harness,
        ("ast_grep", {"pat": "nothing_calls_this($A)"}),
        ("ast_grep", {"pat": "log($$ARGS)"}),
        ("ast_grep", {"pat": "log($A)", "path": "nowhere"}),
        ("ast_grep", {"pat": "log($A)", "lang": "cobol"}),
    )
    assert (none.is_error, text(none)) == (False, "No matches found")
    assert twodollar.is_error and "use `$$$NAME`" in text(twodollar)
    assert (missing.is_error, text(missing)) == (True, "Path not found: nowhere")
    assert lang.is_error and text(lang).startswith("Unknown language 'cobol'; use one of:")
    for end in (twodollar, missing, lang):
        assert "\n" not in text(end) and "Traceback" not in text(end)


def test_a_pattern_that_does_not_parse_is_a_parse_issue_not_an_absence(
    omp_harness: Any, project: Path
) -> None:
    (end,) = call(omp_harness, ("ast_grep", {"pat": "log(", "path": "app"}))
    assert end.is_error
    assert text(end) == "Parse issues: the pattern 'log(' does not parse as python"


def test_without_the_engine_the_tools_are_not_offered_and_the_plugin_says_why(
    omp_harness: Any, monkeypatch: Any
) -> None:
    import sys

    monkeypatch.setitem(sys.modules, "ast_grep_py", None)  # as if it were not installed
    runtime = omp_harness.runtime(builtins=["ast"])
    tools = {tool.name for _plugin, tool in runtime.contributions.items.get("tools", [])}
    assert not {"ast_grep", "ast_edit"} & tools
    (record,) = [r for r in runtime.host.records if r.name == "ast"]
    assert record.status == "degraded"
    assert "the ast-grep engine (the ast-grep-py package) is not installed" in record.error


def test_omp_plugin_doctor_says_why_the_ast_tools_are_not_offered(
    omp_harness: Any, monkeypatch: Any, capsys: Any
) -> None:
    import sys

    builtins = ["ast", "plugin_manager"]
    omp_harness.run_subcommand("plugin", "info", "ast", builtins=builtins)
    assert "  tools ast_grep, ast_edit: offered here" in capsys.readouterr().out
    monkeypatch.setitem(sys.modules, "ast_grep_py", None)  # as if it were not installed
    omp_harness.run_subcommand("plugin", "doctor", builtins=builtins)
    out = capsys.readouterr().out
    assert (
        "ast: tools ast_grep, ast_edit not offered here: the ast-grep engine is not "
        "installed (pip install ast-grep-py)"
    ) in out
