#!/usr/bin/env python3
"""Fails (listing the places) when a C++ file names a RISE primitive by a string
literal: past the parsers, primitives are named by their PrimId (the row of
src/rise/primitives.def), so that a misspelt primitive does not compile instead of
silently never matching. The names are read from the table.

Usage: check_no_prim_strings.py [--root DIR] PATH...   (files or folders, relative to
the root, which defaults to the repository's)
       check_no_prim_strings.py --self-test FIXTURE   (the check reports exactly the
lines of FIXTURE marked `expect-hit`: tests/style/prim_strings_fixture.txt)

Not checked:
- the table itself and the parsers, which read primitive names from text:
  src/rise/primitives.*, src/rise/lexer.cpp, src/rise/parser.cpp, src/elevate/parser.cpp
  and parser_lex.cpp (its tokens);
- the name of a strategy or rule (a rule may be named after the primitive it
  introduces, as mapSeq is): a literal that is the first argument of rule(, fail_at(,
  Strategy(, core(, replace_head( or list(, or the first field of a rule's
  declaration, rule({ or normal_form({ (src/elevate/library.h);
- a literal on a line whose comment says `not a primitive` (a C function or keyword
  of the same name, a DPIA node kind), and the lines between comments
  `prim-names: off` and `prim-names: on`.
String literals are found by reading the C++ tokens: comments, character literals
and raw strings (a whole raw string is one literal) are told apart.
"""
import os
import re
import sys

EXCLUDED = {
    "src/rise/primitives.def",
    "src/rise/primitives.cpp",
    "src/rise/primitives.h",
    "src/rise/lexer.cpp",
    "src/rise/parser.cpp",
    "src/elevate/parser.cpp",
    "src/elevate/parser_lex.cpp",
}
STRATEGY_NAMERS = {"rule", "fail_at", "Strategy", "core", "replace_head", "list"}
DECLARERS = {"rule", "normal_form"}  # r.rule({"mapSeq", ...}): a RuleDecl's name
MARKER = "not a primitive"


def literals(text):
    """(line, value, code before it on the way back to the previous token, comment
    text by line) for every ordinary string literal of a C++ source."""
    out, comments = [], {}
    i, n, line = 0, len(text), 1
    code = []  # code characters seen so far (literals and comments left out)
    while i < n:
        c = text[i]
        if c == "\n":
            line += 1
            code.append(c)
            i += 1
        elif text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            comments[line] = comments.get(line, "") + text[i:j]
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            comments[line] = comments.get(line, "") + text[i:j]
            line += text.count("\n", i, j)
            i = j
        elif c == "R" and text.startswith('R"', i) and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
            m = re.match(r'R"([^(\s]*)\(', text[i:])
            end = text.find(")" + m.group(1) + '"', i) if m else -1
            if end < 0:
                code.append(c)
                i += 1
                continue
            end += len(m.group(1)) + 2
            line += text.count("\n", i, end)
            code.append(" ")
            i = end
        elif c == '"':
            j, value = i + 1, []
            while j < n and text[j] != '"':
                if text[j] == "\\":
                    value.append(text[j : j + 2])
                    j += 2
                else:
                    value.append(text[j])
                    j += 1
            out.append((line, "".join(value), "".join(code[-200:])))
            code.append(" ")
            i = j + 1
        elif c == "'" and not (i > 0 and text[i - 1].isalnum()):  # not a digit separator
            j = i + 1
            while j < n and text[j] != "'":
                j += 2 if text[j] == "\\" else 1
            code.append(" ")
            i = j + 1
        else:
            code.append(c)
            i += 1
    return out, comments


def off_lines(comments):
    """Lines between `prim-names: off` and `prim-names: on` comments."""
    off, start = set(), None
    for ln in sorted(comments):
        if "prim-names: off" in comments[ln]:
            start = ln
        elif "prim-names: on" in comments[ln] and start is not None:
            off.update(range(start, ln + 1))
            start = None
    return off


def names_strategy(before):
    """Whether the literal is the first argument of a strategy-naming call."""
    m = re.search(r"\b(\w+)\s*\(\s*$", before)
    if m and m.group(1) in STRATEGY_NAMERS:
        return True
    m = re.search(r"\b(\w+)\s*\(\s*\{\s*$", before)
    return bool(m) and m.group(1) in DECLARERS


def table_names(root):
    with open(os.path.join(root, "src/rise/primitives.def")) as f:
        return set(re.findall(r'\.name = "(\w+)"', f.read()))


def hits_in(text, names):
    """(line, name) of every literal the check reports in a source text."""
    found, comments = literals(text)
    off = off_lines(comments)
    return [
        (ln, value)
        for ln, value, before in found
        if value in names
        and ln not in off
        and MARKER not in comments.get(ln, "")
        and not names_strategy(before)
    ]


def self_test(root, fixture):
    """The check on a fixture reports exactly its lines marked `expect-hit`."""
    names = table_names(root)
    with open(os.path.join(root, fixture), encoding="utf-8") as f:
        text = f.read()
    got = sorted({ln for ln, _ in hits_in(text, names)})
    want = sorted(i + 1 for i, l in enumerate(text.split("\n")) if "expect-hit" in l)
    if got != want or not want:
        print(f"{fixture}: reported lines {got}, expected {want}")
        return 1
    print(f"{fixture}: the {len(want)} planted primitive names are reported, nothing else")
    return 0


def check(root, paths):
    names = table_names(root)
    if not names:
        print("no primitive names found in src/rise/primitives.def", file=sys.stderr)
        return 2
    files = []
    for p in paths:
        full = os.path.join(root, p)
        if os.path.isfile(full):
            files.append(p)
            continue
        if not os.path.isdir(full):
            print(f"no such file or folder: {p}", file=sys.stderr)
            return 2
        for d, _, fs in os.walk(full):
            for f in fs:
                if f.endswith((".cpp", ".h")):
                    files.append(os.path.relpath(os.path.join(d, f), root))
    hits = []
    for rel in sorted(set(files)):
        if rel.replace(os.sep, "/") in EXCLUDED:
            continue
        with open(os.path.join(root, rel), encoding="utf-8") as f:
            text = f.read()
        lines = text.split("\n")
        for ln, value in hits_in(text, names):
            hits.append(f"{rel}:{ln}: \"{value}\": {lines[ln - 1].strip()}")
    if hits:
        print("primitive names as string literals (name the primitive by its PrimId, e.g. "
              "match_prim(e, PrimId::Slide, 1), call(PrimId::Map, {f, x})):")
        print("\n".join(hits))
        return 1
    print(f"no primitive name as a string literal in: {' '.join(paths)}")
    return 0


def main(argv):
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    args = list(argv)
    if len(args) >= 2 and args[0] == "--root":
        root, args = args[1], args[2:]
    if len(args) == 2 and args[0] == "--self-test":
        return self_test(root, args[1])
    if not args:
        print(f"usage: {os.path.basename(__file__)} [--root DIR] PATH... | --self-test FIXTURE",
              file=sys.stderr)
        return 2
    return check(root, args)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
