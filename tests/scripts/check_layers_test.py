#!/usr/bin/env python3
"""scripts/check-layers.py: a forbidden include (also from a nested layer),
an undeclared link and a Layout table out of step with the folders each fail it, a clean tree passes, and the repository itself is clean."""
import pathlib
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parents[2]
CHECK = ROOT / "scripts" / "check-layers.py"


def run(root):
    return subprocess.run([sys.executable, CHECK, "--root", root], capture_output=True, text=True)


def tree(files):
    d = pathlib.Path(tempfile.mkdtemp())
    for path, text in files.items():
        (d / path).parent.mkdir(parents=True, exist_ok=True)
        (d / path).write_text(text)
    return d


def main():
    libs = {"common/CMakeLists.txt": "add_library(skiff_common STATIC a.cc)\n",
            "log/CMakeLists.txt": "add_library(skiff_log STATIC a.cc)\n"}
    clean = tree({**libs, "log/CMakeLists.txt": libs["log/CMakeLists.txt"]
                  + "target_link_libraries(skiff_log PUBLIC skiff_common)\n",
                  "log/a.cc": '#include "common/x.h"\n'})
    assert run(clean).returncode == 0, run(clean).stdout
    forbidden = tree({**libs, "protocol/a.h": '#include "log/log.h"\n'})
    r = run(forbidden)
    assert r.returncode == 1 and "protocol/ may not use log/" in r.stdout, r.stdout
    undeclared = tree({**libs, "log/a.cc": '#include "common/x.h"\n'})
    r = run(undeclared)
    assert r.returncode == 1 and "no library of log/ links" in r.stdout, r.stdout
    # A folder of three parts is a layer of its own: coordinator/group/streams/
    # may not include the coordinator/group/ that uses it.
    nested = tree({**libs, "coordinator/group/streams/a.cc": '#include "coordinator/group/group_types.h"\n'})
    r = run(nested)
    assert r.returncode == 1 and "coordinator/group/streams/ may not use coordinator/group/" in r.stdout, r.stdout
    readme = tree({**libs, "README.md": "## Layout\n\n| `common/` | x |\n| `gone/` | y |\n"})
    r = run(readme)
    assert r.returncode == 1 and "misses log/" in r.stdout and "names gone/" in r.stdout, r.stdout
    r = run(ROOT)
    assert r.returncode == 0, r.stdout
    print("check_layers_test: 6 passed, 0 failed")


if __name__ == "__main__":
    main()
