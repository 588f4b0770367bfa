"""Script lines that repeat, and alternatives chosen by the tool that answered or by any
of several texts: what lets the bundled demo answer whatever a newcomer types."""

from __future__ import annotations

RULES = [
    {"text": "numbered first step"},
    {"repeat": True, "after_tool": "read", "text": "after read"},
    {"repeat": True, "when": ["files", "folder"], "tool_calls": [{"name": "ls", "arguments": {}}]},
    {"repeat": True, "after_tool": "ls", "unless": "not found", "text": "after ls"},
    {"repeat": True, "when": "notes", "tool_calls": [{"name": "read", "arguments": {"path": "n"}}]},
    {"repeat": True, "text": "anything else"},
]


def test_repeated_lines_answer_every_request_after_the_numbered_ones(omp_cli):
    (omp_cli.cwd / "n").write_text("kiwi\n")
    script = omp_cli.script(RULES)
    answers = []
    for prompt in ("hi", "the folder please", "my notes", "hi again", "list files"):
        proc = omp_cli("-c", "-p", prompt, "--script", script)
        assert proc.returncode == 0, proc.stderr
        answers.append(proc.stdout.strip())
    assert answers == ["numbered first step", "after ls", "after read", "anything else", "after ls"]


def test_a_script_of_repeated_lines_only_never_runs_out(omp_cli):
    script = omp_cli.script([{"repeat": True, "text": "again"}])
    for _ in range(3):
        proc = omp_cli("-c", "-p", "x", "--script", script)
        assert (proc.returncode, proc.stdout) == (0, "again\n"), proc.stderr


def test_a_repeated_choose_line(omp_cli):
    script = omp_cli.script(
        [{"repeat": True, "choose": [{"when": "a", "text": "A"}, {"text": "other"}]}]
    )
    assert omp_cli("-p", "a", "--script", script).stdout == "A\n"
    assert omp_cli("-p", "b", "--script", script).stdout == "other\n"


def test_nothing_matching_says_so(omp_cli):
    script = omp_cli.script([{"repeat": True, "when": "never", "text": "x"}])
    proc = omp_cli("-p", "hi", "--script", script)
    assert proc.returncode == 1
    assert "none of the repeated steps" in proc.stderr and "request 1" in proc.stderr

    script = omp_cli.script([{"choose": [{"when": "never", "text": "x"}]}])
    proc = omp_cli("-p", "hi", "--script", script)
    assert proc.returncode == 1
    assert "no alternative on line 1" in proc.stderr


def test_malformed_rules_name_file_and_line(omp_cli):
    cases = [
        ([{"repeat": True, "text": "a"}, {"text": "b"}], ":2:", "cannot follow"),
        ([{"repeat": "yes", "text": "a"}], ":1:", "'repeat' must be true or false"),
        ([{"when": [], "text": "a"}], ":1:", "'when' must be a string or a non-empty list"),
        ([{"when": ["a", 1], "text": "a"}], ":1:", "'when' must be"),
        ([{"after_tool": 3, "text": "a"}], ":1:", "'after_tool' must be a string"),
        ([{"choose": [{"text": "a"}], "text": "b"}], ":1:", "'choose' takes"),
    ]
    for steps, where, message in cases:
        script = omp_cli.script(steps)
        line = omp_cli.assert_one_line_error(omp_cli("-p", "hi", "--script", script))
        assert f"{script.name}{where}" in line and message in line, line
