#!/usr/bin/env python3
"""Keeps the op -> file table of plugins/torchscript/README.md true.

Reads every MXTS_LOWER(fn, "ns::op", ...) registration under
plugins/torchscript/src/lower/ and the table rows of the README section
"## Op → file" (`| ops | lower/<file>.cpp |`, the ops as `code`, each row
one lowering function). Fails when an op is registered in a file the table
does not name for it, or the table names an op no file registers there.

Usage: check_lowering_table.py REPO_ROOT [--print]   (--print writes the
table the sources imply, for pasting into the README.)
"""
import pathlib
import re
import sys

REGISTRATION = re.compile(r'^MXTS_LOWER\(\s*(\w+)\s*,(.*?)\);', re.M | re.S)
SECTION = "## Op → file"


def registered(lower_dir):
    rows = []  # (file, function, [ops])
    for path in sorted(lower_dir.glob("*.cpp")):
        for fn, ops in REGISTRATION.findall(path.read_text(encoding="utf-8")):
            rows.append((f"lower/{path.name}", fn, re.findall(r'"([^"]+)"', ops)))
    return rows


def table_pairs(readme):
    text = readme.read_text(encoding="utf-8")
    if SECTION not in text:
        return None
    section = text.split(SECTION, 1)[1].split("\n## ", 1)[0]
    pairs = set()
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 2 or not cells[1].startswith("`lower/"):
            continue
        file = cells[1].strip("`")
        for op in re.findall(r"`([^`]+)`", cells[0]):
            pairs.add((op, file))
    return pairs


def main():
    root = pathlib.Path(sys.argv[1]).resolve()
    rows = registered(root / "plugins/torchscript/src/lower")
    if "--print" in sys.argv:
        print("| ops | file |\n|---|---|")
        for file, _, ops in sorted(rows, key=lambda r: (r[1] != "", r[2][0])):
            print("| " + ", ".join(f"`{op}`" for op in ops) + f" | `{file}` |")
        return 0
    want = {(op, file) for file, _, ops in rows for op in ops}
    have = table_pairs(root / "plugins/torchscript/README.md")
    problems = []
    if have is None:
        problems.append(f'plugins/torchscript/README.md has no section "{SECTION}"')
    else:
        for op, file in sorted(want - have):
            problems.append(f"{op} is registered in {file}; the README table does not say so")
        for op, file in sorted(have - want):
            problems.append(f"the README table puts {op} in {file}; no MXTS_LOWER there registers it")
    if not rows:
        problems.append("no MXTS_LOWER registration found under plugins/torchscript/src/lower")
    for p in problems:
        print(p)
    print(f"{len(want)} registered ops, {len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
