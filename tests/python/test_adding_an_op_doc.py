"""Keeps docs/adding_an_op.md true.

The page marks what it shows with HTML comments before fenced blocks:
- `<!-- file: PATH:LINE -->`: the block is PATH's text from LINE on;
  `<!-- file: PATH -->`: the block appears somewhere in PATH.
- `<!-- run -->`: each line is a command, and the `# ` lines after it are
  what it prints (its stdout, or the last line of stderr when it fails).
  `<!-- run: counts vary -->` lets numbers differ (the op count grows).
Every `PATH:LINE` the prose cites must be one of the marked excerpts.
"""

import pathlib
import re
import shlex
import shutil
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "adding_an_op.md"
MARKER = re.compile(r"<!-- (file|run)(?:: (.*?))? -->")


def _marked_blocks():
    """(kind, argument, body lines, doc line) for every marked fenced block."""
    lines = DOC.read_text().splitlines()
    blocks = []
    i = 0
    while i < len(lines):
        marker = MARKER.fullmatch(lines[i])
        if marker:
            fence = re.match(r"`{3,}", lines[i + 1]).group(0)
            end = lines.index(fence, i + 2)
            blocks.append((marker.group(1), marker.group(2), lines[i + 2:end], i + 1))
            i = end
        i += 1
    return blocks


BLOCKS = _marked_blocks()
FILE_BLOCKS = [b for b in BLOCKS if b[0] == "file"]
RUN_BLOCKS = [b for b in BLOCKS if b[0] == "run"]


def test_the_page_marks_its_excerpts_and_commands():
    assert len(FILE_BLOCKS) >= 6 and len(RUN_BLOCKS) >= 3


@pytest.mark.parametrize("block", FILE_BLOCKS, ids=lambda b: f"{b[1]}@doc:{b[3]}")
def test_excerpt_is_the_files_text(block):
    _, where, body, doc_line = block
    path, _, line = where.partition(":")
    text = (ROOT / path).read_text().splitlines()
    if line:
        start = int(line) - 1
        got = text[start:start + len(body)]
        assert got == body, f"docs/adding_an_op.md:{doc_line}: {where} no longer holds this excerpt"
    else:
        assert "\n".join(body) in "\n".join(text), f"docs/adding_an_op.md:{doc_line}: not found in {path}"


def test_every_cited_line_is_a_checked_excerpt():
    marked = {b[1] for b in FILE_BLOCKS if ":" in b[1]}
    cited = set(re.findall(r"`([\w./]+\.\w+:\d+)`", DOC.read_text()))
    assert cited, "the page cites no file:line"
    assert cited <= marked, f"cited without a checked excerpt: {sorted(cited - marked)}"


def _expected_pairs(body):
    """[(command, [expected output lines])] of a run block."""
    pairs = []
    for line in body:
        if line.startswith("# "):
            pairs[-1][1].append(line[2:])
        else:
            pairs.append((line, []))
    return pairs


def _run(command, tmp_path):
    argv = shlex.split(command.replace("/tmp/gen", str(tmp_path / "gen")))
    assert argv[0] == "python", command
    done = subprocess.run([sys.executable] + argv[1:], cwd=ROOT, capture_output=True, text=True, timeout=300)
    if done.returncode == 0:
        return done.stdout.splitlines()
    return done.stderr.strip().splitlines()[-1:]


def _matches(expected, got, counts_vary):
    if not counts_vary:
        return expected == got
    pattern = re.sub(r"\\d\+", r"\\d+", re.sub(r"\d+", r"\\d+", re.escape(expected)))
    return re.fullmatch(pattern, got) is not None


@pytest.mark.parametrize("block", RUN_BLOCKS, ids=lambda b: f"doc:{b[3]}")
def test_command_prints_what_the_page_shows(block, tmp_path):
    _, option, body, doc_line = block
    for command, expected in _expected_pairs(body):
        got = _run(command, tmp_path)
        assert len(got) == len(expected) and all(
            _matches(e, g, option == "counts vary") for e, g in zip(expected, got)), (
            f"docs/adding_an_op.md:{doc_line}: `{command}` printed {got}, the page shows {expected}")


def test_the_yaml_typo_example_prints_that_error(tmp_path):
    # The page's example error: the xlogy entry with its type set misspelt.
    shown = re.search(r"^error: op_defs/elementwise\.yaml:\d+: .*$", DOC.read_text(), re.M).group(0)
    op_defs = tmp_path / "op_defs"
    shutil.copytree(ROOT / "op_defs", op_defs)
    yaml = op_defs / "elementwise.yaml"
    text = yaml.read_text()
    entry = text.index("  - name: xlogy\n")
    typo = text.index("floating_and_complex", entry)
    yaml.write_text(text[:typo] + "floating_and_complx" + text[typo + len("floating_and_complex"):])
    done = subprocess.run([sys.executable, "codegen/generate.py", "--op-defs", str(op_defs),
                           "--docs-out", str(tmp_path / "ops.md")], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode != 0
    assert done.stderr.strip().replace(str(op_defs), "op_defs") == shown
