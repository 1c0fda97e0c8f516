#!/usr/bin/env python3
"""check_layers.py - keeps the core's structure (docs/architecture.md).

Reads the `#include "..."` lines of core/src and bindings/, maps each to the
folder of the file it names, and fails on:

  (a) a circle between folders (core/src/resolve -> policy -> resolve);
  (b) a folder including a folder above it in the layering table below
      (the same table as docs/architecture.md, which this script checks
      against its own copy);
  (c) a binding including a header of core/src (bindings include only
      core/include/pathgate/ and their own headers);
  (d) a circle between the files of one folder: a file is its .c and its
      .h together, and one file using another is one including the other's
      header.

With --objects DIR (a build's object files, found recursively), it also
reads which file uses which by the names their objects define and need
(`nm`), and fails on (e) a circle of files or folders by use. Includes miss
what a catch-all header hides; names do not.

--count prints the circles instead of failing (for the record).
Exit status: 0 when the structure holds, 1 with one line per finding.
"""

import argparse
import collections
import os
import re
import subprocess
import sys

# The layering table, lowest first. A folder may include its own rank and
# the ranks below it, never a rank above. A platform folder (os/linux) has
# the rank of the group it is listed in.
LAYERS = [
    ("util", ["util", "."]),
    ("lex", ["lex"]),
    ("os", ["os", "os/linux", "os/posix", "os/windows"]),
    ("policy", ["policy"]),
    ("resolve", ["resolve"]),
    ("fs", ["fs"]),
    ("walk", ["walk"]),
    ("edit", ["edit"]),
    ("net", ["net"]),
    ("exec", ["exec", "exec/linux", "net/linux"]),
]

# Portable folders (every folder but a platform's) include no platform
# folder. The one exception is os/os.h including its backend's
# os_platform.h (the flag values and inline bodies of the interface), which
# the drawing counts as part of os/ (folder_of). A pair listed here would
# be allowed for now; an entry that no longer occurs fails the check, so
# the list only shrinks. Nothing is pending.
PENDING_PLATFORM = set()
PLATFORMS = ("linux", "posix", "windows")

# Circles of use (e) allowed for now. Like PENDING_PLATFORM, an entry that
# no longer occurs fails the check, so the list only shrinks; nothing else
# may be added. Nothing is pending.
PENDING_USE = set()

INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"')


def rank_of(folder):
    for i, (_, members) in enumerate(LAYERS):
        if folder in members:
            return i
    return None


def is_platform(folder):
    return folder.split("/")[-1] in PLATFORMS


def sources(top, sub):
    out = []
    for d, _, names in os.walk(os.path.join(top, sub)):
        for n in names:
            if n.endswith((".c", ".h")):
                out.append(os.path.relpath(os.path.join(d, n), top))
    return sorted(out)


def sccs(graph):
    """Strongly connected components with more than one node (Tarjan)."""
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]
    nodes = set(graph) | {m for v in graph.values() for m in v}

    def visit(v):
        work = [(v, iter(sorted(graph.get(v, ()))))]
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        while work:
            node, it = work[-1]
            advanced = False
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter[0]
                    counter[0] += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(graph.get(w, ())))))
                    advanced = True
                    break
                if w in on:
                    low[node] = min(low[node], index[w])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == node:
                        break
                if len(comp) > 1:
                    out.append(sorted(comp))

    for v in sorted(nodes):
        if v not in index:
            visit(v)
    return sorted(out)


def module(path):
    """A file's .c and .h are one file of the drawing, and x_internal.h
    (the internal header of x.c's public one) is x's too."""
    m = os.path.splitext(path)[0]
    return m[: -len("_internal")] if m.endswith("_internal") else m


def folder_of(path, base):
    """A file's folder below base; a backend's os_platform.h is the
    interface's own (os/os.h includes the chosen one)."""
    rel = os.path.relpath(path, base)
    if re.fullmatch(r"os/[a-z]+/os_platform\.h", rel):
        return "os"
    d = os.path.dirname(rel)
    return d if d else "."


def include_graph(top):
    """(file edges, list of (including file, included path)) for core/src
    and bindings/."""
    core = sources(top, "core/src")
    binding = sources(top, "bindings")
    by_name = collections.defaultdict(list)
    for p in core:
        by_name[os.path.basename(p)].append(p)
    edges = []
    for p in core + binding:
        with open(os.path.join(top, p), encoding="utf-8") as f:
            for line in f:
                m = INCLUDE.match(line)
                if not m:
                    continue
                name = m.group(1)
                # a path relative to the including file first, then the
                # core's include path (every core folder is on it)
                rel = os.path.normpath(os.path.join(os.path.dirname(p), name))
                if os.path.exists(os.path.join(top, rel)):
                    edges.append((p, rel))
                elif p.startswith("core/src/") and by_name.get(os.path.basename(name)):
                    edges.append((p, by_name[os.path.basename(name)][0]))
                elif p.startswith("bindings/") and by_name.get(os.path.basename(name)):
                    # a binding naming a core header by its bare name
                    edges.append((p, by_name[os.path.basename(name)][0]))
    return edges


def check_includes(top, findings, counts):
    edges = include_graph(top)
    folders = collections.defaultdict(set)
    files = collections.defaultdict(set)
    for src, dst in edges:
        if src.startswith("bindings/"):
            if dst.startswith("core/src/"):
                findings.append(f"(c) binding includes a core-internal header: {src} -> {dst}")
            if module(src) != module(dst):
                files[module(src)].add(module(dst))
            continue
        fs, fd = folder_of(src, "core/src"), folder_of(dst, "core/src")
        if fs != fd:
            folders[fs].add(fd)
            rs, rd = rank_of(fs), rank_of(fd)
            if rs is None:
                findings.append(f"folder core/src/{fs} is not in the layering table")
            elif rd is None:
                findings.append(f"folder core/src/{fd} is not in the layering table")
            elif rd > rs:
                findings.append(
                    f"(b) {fs} ({LAYERS[rs][0]}) includes {fd} ({LAYERS[rd][0]}), a layer above:"
                    f" {src} -> {dst}")
        elif module(src) != module(dst):
            files[module(src)].add(module(dst))
    platform_pairs = {(s, d) for s, ds in folders.items() for d in ds
                      if not is_platform(s) and is_platform(d)}
    for s, d in sorted(platform_pairs - PENDING_PLATFORM):
        findings.append(f"portable folder {s} includes platform folder {d}")
    for s, d in sorted(PENDING_PLATFORM - platform_pairs):
        findings.append(f"PENDING_PLATFORM lists {s} -> {d}, which no longer occurs: drop it")
    fc = sccs(folders)
    for c in fc:
        findings.append("(a) include circle between folders: " + " <-> ".join(c))
    mc = sccs(files)
    for c in mc:
        findings.append("(d) include circle between files: " + " <-> ".join(c))
    counts["include: folder circles"] = fc
    counts["include: file circles"] = mc


NM_LINE = re.compile(r"^\s*(?:[0-9a-fA-F]+\s+)?([A-Za-z])\s+(\S+)$")


def object_source(path):
    """core/src/fs/fs_file.c from .../core/src/fs/fs_file.c.o, and
    bindings/lua/uri.c from .../bindings/lua/CMakeFiles/x.dir/uri.c.o."""
    p = re.sub(r"/CMakeFiles/[^/]+\.dir/", "/", path.replace(os.sep, "/"))
    for anchor in ("/core/src/", "/bindings/"):
        i = p.find(anchor)
        if i >= 0:
            rest = p[i + 1:]
            return rest[:-2] if rest.endswith(".o") else rest
    return None


_NM_CACHE = {}


def nm_all(objs):
    """{object: its nm lines}: one nm for all of them (cached: the core's
    objects are read once for every program)."""
    todo = [o for o in objs if o not in _NM_CACHE]
    for i in range(0, len(todo), 200):
        chunk = todo[i:i + 200]
        out = subprocess.run(["nm", "-A"] + chunk, capture_output=True, text=True,
                             check=True).stdout
        for o in chunk:
            _NM_CACHE[o] = []
        for line in out.splitlines():
            path, _, rest = line.partition(":")
            if path in _NM_CACHE:
                _NM_CACHE[path].append(rest)
    return {o: _NM_CACHE[o] for o in objs}


def use_graph(top, dirs):
    """(file edges, folder edges) of one program: the objects under dirs
    (an object whose source is gone, left by a file moved since the build
    was configured, is not read)."""
    objs = []
    for d in dirs:
        for root, _, names in os.walk(d):
            objs += [os.path.join(root, n) for n in names if n.endswith(".c.o")]
    defined, needed = {}, collections.defaultdict(set)
    for o, lines in nm_all(sorted(objs)).items():
        src = object_source(o)
        if src is None or not os.path.exists(os.path.join(top, src)):
            continue
        for line in lines:
            m = NM_LINE.match(line)
            if not m:
                continue
            kind, name = m.groups()
            if kind == "U":
                needed[src].add(name)
            elif kind.isupper():
                defined.setdefault(name, src)
    files = collections.defaultdict(set)
    folders = collections.defaultdict(set)
    for src, names in needed.items():
        for n in names:
            dst = defined.get(n)
            if dst is None or dst == src:
                continue
            files[module(src)].add(module(dst))
            fs, fd = os.path.dirname(src), os.path.dirname(dst)
            if fs != fd:
                folders[fs].add(fd)
    return files, folders


def check_objects(top, programs, findings, counts):
    """programs: lists of object folders, each one program (the core with
    the Lua module, the core with the Python module): names resolve within
    a program, never between two."""
    fc, mc = set(), set()
    for dirs in programs:
        files, folders = use_graph(top, dirs)
        fc |= {tuple(c) for c in sccs(folders)}
        mc |= {tuple(c) for c in sccs(files)}
    found = {frozenset(c) for c in fc | mc}
    for kind, circles in (("folders", fc), ("files", mc)):
        for c in sorted(circles):
            if frozenset(c) not in PENDING_USE:
                findings.append(f"(e) circle of {kind} by use: " + " <-> ".join(c))
    for c in sorted(PENDING_USE - found, key=sorted):
        findings.append("PENDING_USE lists " + " <-> ".join(sorted(c)) +
                        ", which no longer occurs: drop it")
    counts["use: folder circles"] = sorted(fc)
    counts["use: file circles"] = sorted(mc)


def check_doc(top, findings):
    """docs/architecture.md's layering table names the same ranks."""
    path = os.path.join(top, "docs/architecture.md")
    if not os.path.exists(path):
        findings.append("docs/architecture.md is missing")
        return
    with open(path, encoding="utf-8") as f:
        text = f.read()
    rows = re.findall(r"^\|\s*(\d+)\s*\|([^|]*)\|", text, re.M)
    doc = {int(n): sorted(re.findall(r"`([a-z/.]+)/?`", cells)) for n, cells in rows}
    for i, (_, members) in enumerate(LAYERS):
        want = sorted(m for m in members if m != ".")
        got = sorted(m.rstrip("/") for m in doc.get(i, []))
        if got != want:
            findings.append(f"docs/architecture.md rank {i} lists {got}, this script {want}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--top", default=os.path.join(os.path.dirname(__file__), "..", ".."))
    ap.add_argument("--objects", action="append", default=[],
                    help="the object folders of one program, comma-separated (repeatable:"
                         " one per program)")
    ap.add_argument("--count", action="store_true", help="print the circles, exit 0")
    args = ap.parse_args()
    top = os.path.abspath(args.top)
    findings, counts = [], {}
    check_includes(top, findings, counts)
    if args.objects:
        check_objects(top, [o.split(",") for o in args.objects], findings, counts)
    if args.count:
        for k, v in counts.items():
            print(f"{k}: {len(v)}")
            for c in v:
                print("   ", " <-> ".join(c))
        return 0
    check_doc(top, findings)
    for f in findings:
        print(f)
    if findings:
        print(f"check_layers: {len(findings)} finding(s)")
        return 1
    print("check_layers: the structure holds")
    return 0


if __name__ == "__main__":
    sys.exit(main())
