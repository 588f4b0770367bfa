"""``ast_edit``: preview by default, apply on request, refuse rewrites that break a file."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ast_project import FILES, call, text

RENAME = {"pat": "log($$$ARGS)", "out": "logger.info($$$ARGS)"}


def contents(root: Path) -> dict[str, str]:
    return {name: (root / name).read_text(encoding="utf-8") for name in FILES}


def test_preview_then_apply_a_rewrite_across_files(omp_harness: Any, project: Path) -> None:
    preview, applied = call(
        omp_harness,
        ("ast_edit", {"ops": [RENAME], "paths": ["app", "web/index.ts"]}),
        ("ast_edit", {"ops": [RENAME], "paths": ["app", "web/index.ts"], "apply": True}),
    )
    assert not preview.is_error
    lines = text(preview).splitlines()
    assert lines[0] == (
        "Preview (not applied): 4 replacements in 3 files. "
        "Call ast_edit again with apply=true to write."
    )
    assert "--- a/app/main.py" in lines and "+++ b/app/main.py" in lines
    assert "-    log('start', level=1)" in lines
    assert "+    logger.info('start', level=1)" in lines
    assert "+  logger.info('run', items.length);" in lines
    assert preview.result["details"]["applied"] is False

    assert not applied.is_error
    assert text(applied) == (
        "Applied 4 replacements in 3 files.\n"
        "app/main.py: 2 replacements\n"
        "app/util.py: 1 replacement\n"
        "web/index.ts: 1 replacement"
    )
    after = contents(project)
    assert after["app/main.py"] == FILES["app/main.py"].replace("log(", "logger.info(")
    assert after["app/util.py"].endswith("logger.info('loaded')\n")
    assert after["app/util.py"].startswith("def log(message, level=0):\n")  # a def is no call
    assert "  logger.info('run', items.length);\n" in after["web/index.ts"]
    assert after["build/generated.py"] == FILES["build/generated.py"]  # ignored by .gitignore
    assert after["app/other.py"] == FILES["app/other.py"]


def test_preview_leaves_every_file_untouched(omp_harness: Any, project: Path) -> None:
    (preview,) = call(omp_harness, ("ast_edit", {"ops": [RENAME], "paths": ["."]}))
    assert text(preview).startswith("Preview (not applied): 4 replacements in 3 files.")
    assert contents(project) == FILES


def test_a_rewrite_that_does_not_parse_is_refused_whole(omp_harness: Any, project: Path) -> None:
    ops = [
        {"pat": "print($X)", "out": "print($X, flush=True)"},
        {"pat": "log('loaded')", "out": "log('loaded'"},
    ]
    (refused,) = call(omp_harness, ("ast_edit", {"ops": ops, "paths": ["app"], "apply": True}))
    assert refused.is_error
    first = text(refused).splitlines()[0]
    assert first == (
        "Refused: after the rewrite app/util.py would not parse as python "
        "(line 5: syntax error); no file was changed."
    )
    assert "+log('loaded'" in text(refused)
    assert contents(project) == FILES  # util.py's valid print rewrite was not written either


def test_bad_ops_are_one_line_errors(omp_harness: Any, project: Path) -> None:
    unbound, duplicate, nothing = call(
        omp_harness,
        ("ast_edit", {"ops": [{"pat": "log($A)", "out": "log($B)"}], "paths": ["app"]}),
        ("ast_edit", {"ops": [RENAME, RENAME], "paths": ["app"]}),
        ("ast_edit", {"ops": [{"pat": "nope($A)", "out": "yes($A)"}], "paths": ["app"]}),
    )
    assert text(unbound) == (
        "ops[0]: The replacement uses $B, which the pattern 'log($A)' does not capture"
    )
    assert text(duplicate) == "Duplicate rewrite pattern: log($$$ARGS)"
    assert unbound.is_error and duplicate.is_error
    assert (nothing.is_error, text(nothing)) == (False, "No replacements made")
    assert contents(project) == FILES


def test_a_multiline_template_is_indented_like_the_match(omp_harness: Any, project: Path) -> None:
    op = {"pat": "if $C:\n    $$$BODY", "out": "if not $C:\n    return 1\n$$$BODY"}
    (end,) = call(omp_harness, ("ast_edit", {"ops": [op], "paths": ["app/main.py"], "apply": True}))
    assert not end.is_error, text(end)
    assert (project / "app/main.py").read_text() == (
        "from app.util import log\n"
        "\n"
        "def main(argv):\n"
        "    log('start', level=1)\n"
        "    if not argv:\n"
        "        return 1\n"
        "    log(argv[0])\n"
        "    return 0\n"
    )
