#!/usr/bin/env python3
"""Checks the layer rules of docs/architecture.md over the include graph and
the CMake target links of the broker's folders.

  1. Every #include "X/..." of a folder's sources names a folder that the
     folder may use (ALLOWED below, the table of docs/architecture.md).
  2. Every such include is backed by a declared link: the library of the
     included folder is reachable from the including folder's libraries
     through target_link_libraries (so no folder leans on a dependency that
     another library happens to bring in).
  3. README.md's Layout table names every folder of the repository (a
     folder with layers inside, such as coordinator/, by its subfolders) and
     nothing that does not exist.

tests/, tools/ and generated files are not checked. Exit 0 when clean, 1 with
one line per violation, 2 on a usage error.

  scripts/check-layers.py [--root DIR]
"""
import argparse
import collections
import pathlib
import re
import subprocess
import sys

# folder -> the folders it may include (itself always). The layers of
# docs/architecture.md, bottom to top.
BELOW_API = ["common", "config", "network", "protocol", "log", "metadata", "security/acl", "security/oauth",
             "security/sasl",
             "coordinator/runtime", "coordinator/group", "coordinator/group/streams", "coordinator/txn",
             "coordinator/share",
             "share"]
ALLOWED = {
    "common": [],
    "config": ["common"],
    "network": ["common", "config"],
    "protocol": ["common"],
    "schema/format": ["common"],
    "schema/avro": ["common", "schema/format"],
    "schema/json": ["common", "schema/format"],
    "schema/protobuf": ["common", "schema/format"],
    "schema": ["common", "schema/format", "schema/avro", "schema/json", "schema/protobuf"],
    "log": ["common", "config"],
    "remote/s3": ["common"],
    "remote/metadata": ["common", "config", "protocol", "log", "metadata", "coordinator/runtime"],
    "remote/storage": ["common", "config", "log", "remote/s3", "remote/metadata"],
    "remote/manager": ["common", "config", "protocol", "log", "metadata", "coordinator/runtime", "remote/s3",
                       "remote/metadata", "remote/storage"],
    "metadata": ["common", "config", "log"],
    "security/acl": ["common", "config", "protocol", "log", "metadata"],
    "security/oauth": ["common", "config"],
    "security/sasl": ["common", "config", "protocol", "log", "metadata", "security/oauth"],
    "coordinator/runtime": ["common", "config", "protocol", "log", "metadata"],
    "coordinator/txn": ["common", "config", "protocol", "log", "metadata", "coordinator/runtime"],
    "coordinator/share": ["common", "config", "protocol", "log", "metadata", "coordinator/runtime"],
    "coordinator/group": ["common", "config", "protocol", "log", "metadata", "coordinator/runtime",
                          "coordinator/txn", "coordinator/group/streams"],
    "coordinator/group/streams": ["common", "config", "protocol", "log", "metadata", "coordinator/runtime"],
    "share": ["common", "config", "protocol", "log", "metadata", "coordinator/runtime"],
    "api": BELOW_API,
    "client": ["common", "config", "network", "protocol", "log"],
    "apps/console": ["common", "config", "network", "protocol", "client", "metadata", "security/sasl",
                     "coordinator/runtime"],
    "apps/schema_registry": ["common", "config", "network", "protocol", "client", "metadata", "security/sasl",
                             "coordinator/runtime", "schema", "schema/format"],
    "apps/rest_proxy": ["common", "config", "network", "protocol", "client", "security/sasl", "schema/format"],
    "server": BELOW_API + ["api", "client", "apps/console", "apps/schema_registry", "apps/rest_proxy", "schema",
                           "schema/format", "remote/s3", "remote/metadata", "remote/storage", "remote/manager"],
}
# Include roots that are not folders of ours: protoc's output (api/telemetry).
EXTERNAL = {"opentelemetry"}
SOURCE = re.compile(r"\.(h|cc)$")
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def folder_of(path):
    """The checked folder a repository path belongs to, or None."""
    parts = pathlib.PurePosixPath(path).parts
    if not parts:
        return None
    three = "/".join(parts[:3])
    if three in ALLOWED:
        return three
    two = "/".join(parts[:2])
    if two in ALLOWED:
        return two
    return parts[0] if parts[0] in ALLOWED else None


def include_edges(root):
    """(folder, included folder, file, include) for every include of ours."""
    for f in sorted(root.rglob("*")):
        rel = f.relative_to(root).as_posix()
        src = folder_of(rel)
        if not src or not SOURCE.search(rel) or not f.is_file():
            continue
        for inc in INCLUDE.findall(f.read_text(errors="replace")):
            top = inc.split("/")[0]
            if top in EXTERNAL or "/" not in inc:
                continue
            dst = folder_of(inc)
            if dst is None:
                yield src, f"?{top}", rel, inc
            elif dst != src:
                yield src, dst, rel, inc


def cmake_libraries(root):
    """folder -> its library names; library -> the skiff_* libraries it links."""
    libs = collections.defaultdict(set)
    links = collections.defaultdict(set)
    for cm in root.rglob("CMakeLists.txt"):
        folder = folder_of(cm.relative_to(root).as_posix())
        if folder is None:
            continue
        text = re.sub(r"#.*", "", cm.read_text())
        for name in re.findall(r"add_library\(\s*(skiff_\w+)", text):
            libs[folder].add(name)
        for target, body in re.findall(r"target_link_libraries\(\s*(skiff_\w+)([^)]*)\)", text):
            links[target].update(re.findall(r"\bskiff_\w+", body))
    return libs, links


def reachable(start, links):
    seen, todo = set(), list(start)
    while todo:
        lib = todo.pop()
        if lib not in seen:
            seen.add(lib)
            todo.extend(links.get(lib, ()))
    return seen


def layout_problems(root):
    """Rule 3: README's Layout table against the folders."""
    readme = root / "README.md"
    if not readme.exists():
        return []
    text = readme.read_text()
    section = text.split("## Layout", 1)[-1].split("\n## ", 1)[0]
    listed = set(re.findall(r"^\| `([\w/]+)/` \|", section, re.M))
    tracked = subprocess.run(["git", "-C", str(root), "ls-files"], capture_output=True, text=True).stdout.split()
    if not tracked:  # not a git checkout (the checker's own test trees)
        tracked = [p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file()]
    tops = {t.split("/")[0] for t in tracked if "/" in t and not t.startswith(".")}
    expected = set()
    for top in tops:
        subs = [f for f in ALLOWED if f.startswith(top + "/")]
        expected.update(subs if subs else [top])
    problems = [f"README.md's Layout table misses {f}/" for f in sorted(expected - listed)]
    problems += [f"README.md's Layout table names {f}/, which is not a folder here" for f in sorted(listed - expected)
                 if not (root / f).is_dir()]
    return problems


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--root", default=pathlib.Path(__file__).resolve().parent.parent, type=pathlib.Path)
    root = ap.parse_args().root
    libs, links = cmake_libraries(root)
    problems = []
    for src, dst, rel, inc in include_edges(root):
        if dst not in ALLOWED[src]:
            problems.append(f"{rel}: includes \"{inc}\": {src}/ may not use {dst.lstrip('?')}/")
        elif libs.get(dst) and not (libs[dst] & reachable(libs.get(src, ()), links)):
            problems.append(f"{rel}: includes \"{inc}\", but no library of {src}/ links one of {dst}/ "
                            f"({', '.join(sorted(libs[dst]))})")
    problems += layout_problems(root)
    for p in problems:
        print(f"check-layers: {p}")
    print(f"check-layers: {len(problems)} violation(s) of docs/architecture.md" if problems
          else "check-layers: every include follows docs/architecture.md")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
