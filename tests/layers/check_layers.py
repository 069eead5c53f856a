#!/usr/bin/env python3
"""Keeps the core's folder order and the C ABI's home true.

1. The folders of sdk/src form one order with no cycle, written in
   docs/architecture.md on the line starting with "sdk/src order:"
   (lowest first, "←" between levels, "," between folders of one level).
   A file may include its own folder and lower levels only; every folder
   of sdk/src must be placed in the order.
2. Every MX_API function is defined in sdk/src/c_api/, in the file whose
   first line names its section of abi/include/modelexport/modelexport.h
   (`// modelexport.h, "Models": ...`), and nowhere else.

Usage: check_layers.py REPO_ROOT. Prints every violation, exits 1 if any.
"""
import pathlib
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s+"([a-z_]+)/[^"]+"', re.M)
SECTION = re.compile(r'/\* -{10,} \*/\n/\* (.+?)\s*\*/\n/\* -{10,} \*/')
DECLARED = re.compile(r'\bMX_API\b[^;{]*?\b(mx_[a-z0-9_]+)\s*\(')
FILE_SECTION = re.compile(r'^// modelexport\.h, "([^"]+)"')


def read_order(doc):
    for line in doc.read_text(encoding="utf-8").splitlines():
        if line.startswith("sdk/src order:"):
            levels = line.split(":", 1)[1].split("←")
            return {f.strip(): rank for rank, level in enumerate(levels) for f in level.split(",")}
    return None


def check_includes(src, rank, problems):
    for folder in sorted(p.name for p in src.iterdir() if p.is_dir()):
        if folder not in rank:
            problems.append(f"sdk/src/{folder}/ is not placed in the order (docs/architecture.md)")
    for path in sorted(src.rglob("*.[ch]pp")):
        folder = path.relative_to(src).parts[0]
        if folder not in rank:
            continue
        for target in INCLUDE.findall(path.read_text(encoding="utf-8")):
            if target == folder or target not in rank:
                continue  # own folder, or outside sdk/src (abi, common)
            if rank[target] >= rank[folder]:
                where = "above" if rank[target] > rank[folder] else "beside"
                problems.append(f"{path.relative_to(src.parent.parent)}: includes {target}/, which is "
                                f"{where} {folder}/ in the order (docs/architecture.md)")


def check_c_api(root, problems):
    header = (root / "abi/include/modelexport/modelexport.h").read_text(encoding="utf-8")
    marks = list(SECTION.finditer(header))
    section_of = {}
    for i, m in enumerate(marks):
        body = header[m.end(): marks[i + 1].start() if i + 1 < len(marks) else len(header)]
        for name in DECLARED.findall(body):
            section_of[name] = m.group(1)
    src = root / "sdk/src"
    files_of_section = {}
    for path in sorted((src / "c_api").glob("*.cpp")):
        first = path.read_text(encoding="utf-8").splitlines()[:1]
        m = FILE_SECTION.match(first[0]) if first else None
        if m:
            files_of_section[m.group(1)] = path
    defined = {}
    for path in sorted(src.rglob("*.cpp")):
        for name in re.findall(r'^MX_API\b[^;]*?\b(mx_[a-z0-9_]+)\s*\([^;]*?\{', path.read_text(encoding="utf-8"),
                               re.M | re.S):
            defined.setdefault(name, []).append(path)
    for name, section in sorted(section_of.items()):
        want = files_of_section.get(section)
        where = defined.get(name, [])
        if want is None:
            problems.append(f'no sdk/src/c_api/*.cpp starts with // modelexport.h, "{section}" (for {name})')
        elif where != [want]:
            got = ", ".join(str(p.relative_to(root)) for p in where) or "nowhere"
            problems.append(f"{name} ({section}) must be defined in {want.relative_to(root)} only, "
                            f"is defined in {got}")
    for name, where in sorted(defined.items()):
        if name not in section_of:
            problems.append(f"{name} is defined in {where[0].relative_to(root)} but not declared in modelexport.h")


def main():
    root = pathlib.Path(sys.argv[1]).resolve()
    problems = []
    rank = read_order(root / "docs/architecture.md")
    if rank is None:
        problems.append('docs/architecture.md has no line starting with "sdk/src order:"')
    else:
        check_includes(root / "sdk/src", rank, problems)
    check_c_api(root, problems)
    for p in problems:
        print(p)
    print(f"{len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
