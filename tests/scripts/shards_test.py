"""tests/integration/harness/shards.py: every module runs in exactly one
shard, the recorded seconds are balanced, and a bad --shard is refused."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "integration"))
from harness import shards  # noqa: E402


def split(n, modules, seconds):
    return [shards.modules_of_shard(f"{k}/{n}", modules, seconds) for k in range(1, n + 1)]


def check_partition(parts, modules):
    seen = [m for p in parts for m in p]
    assert sorted(seen) == sorted(set(modules)), f"not a partition: {parts}"


def main():
    seconds = {"a.py": 60, "b.py": 50, "c.py": 40, "d.py": 30, "e.py": 20, "f.py": 10}
    modules = list(seconds) + ["new.py", "a.py"]  # one unrecorded, one repeated (several tests)
    for n in (1, 2, 3, 7):
        check_partition(split(n, modules, seconds), modules)
    load = [sum(seconds.get(m, 35) for m in p) for p in split(2, modules, seconds)]
    assert max(load) - min(load) <= 10, f"unbalanced: {load}"
    check_partition(split(2, modules, {}), modules)  # nothing recorded: still a partition
    recorded = shards.recorded_seconds("java")
    assert recorded and all(m.endswith(".py") for m in recorded), "module_seconds.json has no java run"
    for bad in ("0/2", "3/2", "1", "a/b"):
        try:
            shards.parse_spec(bad)
        except ValueError:
            continue
        raise AssertionError(f"--shard {bad} accepted")
    print("shards: ok")


if __name__ == "__main__":
    main()
