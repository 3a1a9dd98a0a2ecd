#!/usr/bin/env python3
"""Lengths of the C++ functions under some folders, from the header's first line to the closing
brace (issue 34: none over 100 lines in src/ and apps/).

    scripts/function_lengths.py [--max N] [--list N] FOLDER...

Prints the count of functions and of those over 60 and over 100 lines, and each function over
`--list` lines (default 100) with its file and line; exits 1 when one is over `--max` (if given).
A brace matcher, not a compiler: comments, strings, raw strings and preprocessor lines are blanked
first; a block opened at namespace or class level whose header has a closing parenthesis is a
function (lambdas and blocks inside a function count towards it); class, struct, enum, namespace
and brace initialisers are not.
"""
import argparse
import bisect
import os
import re
import sys

EXTENSIONS = (".cpp", ".hpp", ".h", ".cc")
KEYWORDS = {"if", "for", "while", "switch", "return", "sizeof", "decltype", "catch", "alignof", "static_assert"}
RAW_STRING = re.compile(r'(u8|u|U|L)?R"([^()\\ ]{0,16})\(')
ACCESS = re.compile(r"^\s*(public|private|protected)\s*:(?!:)")  # before a member's header


def blank(text):
    """The same text, every character of comments, literals and preprocessor lines a space."""
    return re.sub(r"[^\n]", " ", text)


def string_end(src, i):
    """Index after the quoted literal starting at src[i] (or at the end of its line)."""
    quote, j = src[i], i + 1
    while j < len(src) and src[j] != quote and src[j] != "\n":
        j += 2 if src[j] == "\\" else 1
    return j + 1


def preprocessor_end(src, i):
    """Index of the newline ending the directive at src[i], continuation lines included."""
    while True:
        k = src.find("\n", i)
        k = len(src) if k < 0 else k
        if src[k - 1:k] != "\\":
            return k
        i = k + 1


def strip(src):
    out, i, n = [], 0, len(src)
    while i < n:
        c = src[i]
        raw = RAW_STRING.match(src, i)
        if src.startswith("//", i):
            j = src.find("\n", i)
            j = n if j < 0 else j
        elif src.startswith("/*", i):
            j = src.find("*/", i + 2)
            j = n if j < 0 else j + 2
        elif raw and (i == 0 or not (src[i - 1].isalnum() or src[i - 1] == "_")):
            end = src.find(")" + raw.group(2) + '"', raw.end())
            j = n if end < 0 else end + len(raw.group(2)) + 2
        elif c == '"' or (c == "'" and not (i > 0 and src[i - 1].isalnum())):  # not a digit separator 1'000
            j = string_end(src, i)
        elif c == "#" and (i == 0 or src[i - 1] == "\n"):
            j = preprocessor_end(src, i)
        else:
            out.append(c)
            i += 1
            continue
        out.append(blank(src[i:j]))
        i = j
    return "".join(out)


def block_kind(header, before):
    """What a brace opened at namespace or class level starts, from the text since the last statement."""
    h = header.strip()
    if h.count("(") > h.count(")"):
        return "init"  # a brace inside a call's arguments
    if re.search(r"\bnamespace\b", header) or re.search(r'extern\s+"\s*"\s*$', header):
        return "namespace"
    if re.search(r"\b(class|struct|union|enum)\b[^()]*$", header):
        return "class"
    if re.search(r"\)\s*:", h) and (before.isalnum() or before in "_>") and \
            not re.search(r"\b(const|noexcept|override|final|mutable|try)\s*$", h):
        return "init"  # a member initialiser list's braced value
    if ")" in h or h.endswith("]"):
        return "function"
    return "other"


def function_name(header):
    for match in re.finditer(r"([~\w:<>]*[\w>~])\s*\(", header.strip()):
        if match.group(1).split("::")[-1] not in KEYWORDS:
            return match.group(1)
    return "?"


def functions(path):
    """(lines, name, line of its header) for every function in the file."""
    with open(path, errors="replace") as f:
        src = strip(f.read())
    line_starts = [0] + [k + 1 for k, c in enumerate(src) if c == "\n"]
    line = lambda position: bisect.bisect_right(line_starts, position)
    stack, header_start, found = [], 0, []
    for k, c in enumerate(src):
        outer = not stack or stack[-1][0] in ("namespace", "class")
        if c == ";" and outer:
            header_start = k + 1
        elif c == "{":
            if not outer:
                stack.append(("inner", 0, ""))
                continue
            header = ACCESS.sub(lambda m: blank(m.group(0)), src[header_start:k])
            kind = block_kind(header, src[:k].rstrip()[-1:])
            start = header_start + len(header) - len(header.lstrip())
            stack.append((kind, start, function_name(header) if kind == "function" else ""))
            if kind in ("namespace", "class"):
                header_start = k + 1
        elif c == "}" and stack:
            kind, start, name = stack.pop()
            if kind == "function":
                found.append((line(k) - line(start) + 1, name, line(start)))
            if kind != "init" and (not stack or stack[-1][0] in ("namespace", "class")):
                header_start = k + 1
    return found


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("folders", nargs="+")
    parser.add_argument("--max", type=int, help="exit 1 when a function is longer")
    parser.add_argument("--list", type=int, default=100, help="list the functions longer than this")
    args = parser.parse_args()
    rows = []
    for folder in args.folders:
        for directory, _, files in sorted(os.walk(folder)):
            for name in sorted(files):
                if name.endswith(EXTENSIONS):
                    path = os.path.join(directory, name)
                    rows += [(lines, function, path, at) for lines, function, at in functions(path)]
    rows.sort(key=lambda r: -r[0])
    print(f"{len(rows)} functions; over 60 lines: {sum(r[0] > 60 for r in rows)}; over 100 lines: {sum(r[0] > 100 for r in rows)}")
    for lines, function, path, at in rows:
        if lines > args.list:
            print(f"{lines:5d}  {function}  {path}:{at}")
    too_long = [r for r in rows if args.max is not None and r[0] > args.max]
    if too_long:
        print(f"function_lengths.py: {len(too_long)} functions over {args.max} lines: split them into named stages "
              "(docs/architecture.md)", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
