#!/usr/bin/env python3
"""Files and functions a reviewer can hold (issue 33): no C, Lua, shell or
Python file over MAX_FILE lines, no C or Lua function over MAX_FUNCTION lines.

C functions are found as the house style writes them: a definition starts at
column 0 and its body's closing brace is the next "}" at column 0. Lua
functions by indentation: a line holding `function` that opens a body, at
indentation N, ends at the next line of indentation N that starts with `end`
(the house style indents by two, and `end` closes where its `function`
began). Generated files (build trees) are not looked at.

Usage: check_sizes.py ROOT  (exit 1 and a list when something is over)
"""
import os
import re
import sys

MAX_FILE = 800
MAX_FUNCTION = 80
TREES = ("src", "shim", "lua", "tests", "bench", "examples", "include", "scripts")
SUFFIXES = (".c", ".h", ".lua", ".sh", ".py")  # functions: C and Lua only

C_HEAD = re.compile(r"^[A-Za-z_][^;=]*\(")
C_NOT_FUNCTIONS = ("typedef",)
LUA_FUNCTION = re.compile(r"\bfunction\b")
LUA_END = re.compile(r"\bend\b")
LUA_STRING = re.compile(r""""(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'""")


def files(root):
    for tree in TREES:
        for base, dirs, names in os.walk(os.path.join(root, tree)):
            dirs[:] = sorted(d for d in dirs if not d.startswith("build") and d != "corpus")
            for name in sorted(names):
                if name.endswith(SUFFIXES):
                    yield os.path.join(base, name)


def c_functions(lines):
    start = None
    for i, line in enumerate(lines):
        if start is None and C_HEAD.match(line) and not line.startswith(C_NOT_FUNCTIONS):
            # The signature may wrap: the body opens where a line ends in "{".
            for j in range(i, min(i + 8, len(lines))):
                if lines[j].rstrip().endswith(";"):
                    break
                if lines[j].rstrip().endswith("{"):
                    start = i
                    break
        elif start is not None and line.startswith("}"):
            yield start, i - start + 1, lines[start].strip()
            start = None


def lua_functions(lines):
    for i, line in enumerate(lines):
        code = LUA_STRING.sub('""', line).split("--", 1)[0]
        if len(LUA_FUNCTION.findall(code)) <= len(LUA_END.findall(code)):
            continue  # no function here, or one closed on its own line
        indent = len(line) - len(line.lstrip(" "))
        for j in range(i + 1, len(lines)):
            other = lines[j]
            if other.strip() and len(other) - len(other.lstrip(" ")) == indent and other.lstrip().startswith("end"):
                yield i, j - i + 1, line.strip()
                break


def main(root):
    over = []
    for path in files(root):
        with open(path, encoding="utf-8", errors="replace") as f:
            lines = f.read().splitlines()
        rel = os.path.relpath(path, root)
        if len(lines) > MAX_FILE:
            over.append(f"{rel}: {len(lines)} lines (at most {MAX_FILE})")
        if path.endswith(".lua"):
            found = lua_functions(lines)
        elif path.endswith((".c", ".h")):
            found = c_functions(lines)
        else:
            found = ()
        for start, length, head in found:
            if length > MAX_FUNCTION:
                over.append(f"{rel}:{start + 1}: a function of {length} lines (at most {MAX_FUNCTION}): {head[:70]}")
    for line in over:
        print(line)
    if over:
        print(f"check_sizes: {len(over)} over the limits", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "."))
