#!/usr/bin/env python3
"""The structure, held: every file in src/ sits in the layer src/layers.txt
gives it and includes nothing from a layer above; the include graph has no
circle; the CLI uses the public header only; the shim includes nothing from
src/; docs/architecture.md's table of files lists exactly the files of
src/layers.txt, each in its layer. Prints the graph by layer; exits 1 naming
every breach."""
import os
import re
import sys

root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..")
src = os.path.join(root, "src")
include = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)

layers = {}
for line in open(os.path.join(src, "layers.txt")):
    line = line.split("#")[0].split()
    if line:
        for name in line[1:]:
            layers[name] = int(line[0])

def concept(path):
    """src/landlock.c and src/landlock.h are one concept; cli/ files are the CLI;
    include/lcsb.h and the parts it reads from include/lcsb/ are the public header."""
    rel = os.path.relpath(path, src)
    if rel.startswith("cli" + os.sep):
        return "cli/*"
    if rel.startswith("include" + os.sep):
        return "lcsb"
    return os.path.splitext(os.path.basename(rel))[0]

def included(inc):
    """The concept an include names: "lcsb/policy.h" is a part of <lcsb.h>."""
    return "lcsb" if inc.startswith("lcsb/") else os.path.splitext(inc)[0]

def includes(path):
    return include.findall(open(path, encoding="utf-8").read())

breaches = []
graph = {}
for dirpath, _, files in os.walk(src):
    for name in sorted(files):
        if not name.endswith((".c", ".h")):
            continue
        path = os.path.join(dirpath, name)
        rel = os.path.relpath(path, src)
        if rel == "internal.h":
            continue  # the tests' view inside
        c = concept(path)
        if c not in layers:
            breaches.append(f"src/{rel}: in no layer of src/layers.txt")
            continue
        for inc in includes(path):
            if c == "cli/*":
                if inc != "cli.h":
                    breaches.append(f"src/{rel} includes \"{inc}\": the CLI uses <lcsb.h> only")
                continue
            dep = included(inc)
            if dep == c:
                continue
            if dep not in layers:
                breaches.append(f"src/{rel} includes \"{inc}\", which is in no layer")
            elif layers[dep] > layers[c]:
                breaches.append(f"src/{rel} (layer {layers[c]}) includes \"{inc}\" "
                                f"(layer {layers[dep]}): an arrow running up")
            else:
                graph.setdefault(c, set()).add(dep)

# No circle: a depth-first walk that meets a concept still on its path.
def circles(graph):
    state = {}
    def visit(c, path):
        state[c] = "open"
        for dep in sorted(graph.get(c, ())):
            if state.get(dep) == "open":
                breaches.append("a circle: " + " -> ".join(path[path.index(dep):] + [dep]))
            elif dep not in state:
                visit(dep, path + [dep])
        state[c] = "done"
    for c in sorted(graph):
        if c not in state:
            visit(c, [c])
circles(graph)

# The Lua modules, by lua/layers.txt: each require (plain or through pcall)
# of an lcsb module runs down or across a layer, never up nor round a
# circle; every module is in the table, and the table names no module that
# is not there (but the C side's and the caps' data).
lua_layers = {}
for line in open(os.path.join(root, "lua", "layers.txt"), encoding="utf-8"):
    line = line.split("#", 1)[0].split()
    for name in line[1:]:
        lua_layers[name] = int(line[0])
lua_dir = os.path.join(root, "lua", "lcsb")
lua_require = re.compile(r"""require\s*(?:\(\s*|,\s*|)["']([\w.]+)["']""")
lua_graph = {}
found = set()
for name in sorted(os.listdir(lua_dir)):
    if not name.endswith(".lua") or name == "caps.lua":
        continue
    module = "lcsb" if name == "init.lua" else "lcsb." + name[:-4]
    found.add(module)
    if module not in lua_layers:
        breaches.append(f"lua/lcsb/{name} is in no layer of lua/layers.txt")
        continue
    for line in open(os.path.join(lua_dir, name), encoding="utf-8"):
        code = line.split("--", 1)[0]
        for dep in lua_require.findall(code):
            if dep != "lcsb" and not dep.startswith("lcsb."):
                continue
            if dep not in lua_layers:
                breaches.append(f"lua/lcsb/{name} requires {dep}, which is in no layer")
            elif lua_layers[dep] > lua_layers[module]:
                breaches.append(f"lua/lcsb/{name} (layer {lua_layers[module]}) requires {dep} "
                                f"(layer {lua_layers[dep]}): a require running up")
            elif dep != module:
                lua_graph.setdefault(module, set()).add(dep)
for module in sorted(set(lua_layers) - found - {"lcsb.core", "lcsb.caps"}):
    breaches.append(f"lua/layers.txt names {module}, which lua/lcsb/ does not hold")
circles(lua_graph)

shim = os.path.join(root, "shim")
for name in sorted(os.listdir(shim)):
    for inc in includes(os.path.join(shim, name)):
        if os.sep in inc or "/" in inc or not os.path.exists(os.path.join(shim, inc)):
            breaches.append(f"shim/{name} includes \"{inc}\": the shim stands alone")

# The table of files in docs/architecture.md is the same table for a reader:
# a file in one and not the other, or in another layer, is a breach, so the
# two cannot drift apart. Its rows are "| LAYER | `FILE` | ...", under the
# heading "## Files of the library, by layer" and before the next heading.
doc = os.path.join(root, "docs", "architecture.md")
documented = {}
in_table = False
row = re.compile(r"^\|\s*(\d+)\s*\|\s*`([^`]+)`")
for line in open(doc, encoding="utf-8"):
    if line.startswith("#"):
        in_table = line.startswith("## Files of the library, by layer")
        continue
    m = row.match(line) if in_table else None
    if m:
        name = m.group(2)
        name = "cli/*" if name.rstrip("/") == "cli" else os.path.splitext(os.path.basename(name))[0]
        documented[name] = int(m.group(1))
for name in sorted(set(layers) | set(documented)):
    if name not in documented:
        breaches.append(f"src/layers.txt has {name} (layer {layers[name]}), "
                        "which docs/architecture.md's table of files leaves out")
    elif name not in layers:
        breaches.append(f"docs/architecture.md's table of files lists {name} "
                        f"(layer {documented[name]}), which src/layers.txt does not")
    elif documented[name] != layers[name]:
        breaches.append(f"docs/architecture.md's table of files puts {name} in layer "
                        f"{documented[name]}, src/layers.txt in layer {layers[name]}")

for layer in sorted(set(layers.values())):
    names = sorted(n for n, l in layers.items() if l == layer)
    print(f"layer {layer}: " + "; ".join(
        f"{n} -> {', '.join(sorted(graph.get(n, ()))) or '(nothing)'}" for n in names))
for layer in sorted(set(lua_layers.values())):
    names = sorted(n for n, l in lua_layers.items() if l == layer)
    print(f"lua layer {layer}: " + "; ".join(
        f"{n} -> {', '.join(sorted(lua_graph.get(n, ()))) or '(nothing)'}" for n in names))
for b in breaches:
    print("BREACH: " + b, file=sys.stderr)
sys.exit(1 if breaches else 0)
