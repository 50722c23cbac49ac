"""The one results format of the benchmarks. Every run writes
OUT/<benchmark>-<stamp>.json and the same report as OUT/<benchmark>-<stamp>.md,
and prints the report (Markdown: a few "- key: value" lines, then tables)
on stdout. OUT is --out, by default BUILD_DIR/results.

The JSON file, schema "skiff-bench/1":
  schema       "skiff-bench/1"
  benchmark    the module's name (vs_kafka, txn, request_cost, ...)
  command      the command line
  started, finished   UTC, ISO 8601
  environment  date, machine, the Skiff commit, Kafka's version, java, ...
  args         every option, as strings
  runs         [{"broker": "skiff"|"kafka"|"ceiling"|..., "round": n or null,
                 "results": {...}}]: what was measured, per broker start
                 (a benchmark without brokers names what it ran instead)
  report       the Markdown report, as printed
"""
import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path

from bench.brokers import ROOT, log

SCHEMA = "skiff-bench/1"


def add_out_arg(p):
    p.add_argument("--out", type=Path, help="where the JSON and Markdown results go (default: BUILD_DIR/results)")


# --- numbers and tables ----------------------------------------------------

def fmt(v):
    """A number as the tables show it: thousands grouped, three figures below 10."""
    if v is None:
        return "–"
    if isinstance(v, str):
        return v
    if v >= 1000:
        return f"{v:,.0f}"
    if v >= 10:
        return f"{v:.1f}"
    return f"{v:.3g}"


def stats(values):
    """(median, min, max)."""
    return statistics.median(values), min(values), max(values)


def spread(values):
    """"median (min–max)" of several values, the value of one, "–" of none; and the median."""
    if not values:
        return "–", None
    med, lo, hi = stats(values)
    return (f"{fmt(med)} ({fmt(lo)}–{fmt(hi)})" if len(values) > 1 else fmt(med)), med


def ratio(a, b):
    """a/b, as 1/N below 0.1."""
    if a is None or not b:
        return "–"
    r = a / b
    return f"{r:.2f}" if r >= 0.1 or r == 0 else f"1/{1 / r:.0f}"


def table(header, rows):
    """The one table printer: a Markdown table of `header` and `rows` (cells
    formatted with fmt unless they are strings already)."""
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(fmt(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


# --- the run's record --------------------------------------------------------

def environment(**more):
    """Where and with what a run measured."""
    def cmd(*c):
        try:
            r = subprocess.run(c, capture_output=True, text=True, timeout=30)
            return r.stdout.strip() or r.stderr.strip()  # java -version writes to stderr
        except OSError:
            return "?"
    cpu = next((line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
                if line.startswith("model name")), "?")
    mem = round(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30)
    env = {"date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
           "machine": f"{os.cpu_count()} cores, {cpu}, {mem} GiB, Linux {platform.release()}",
           "skiff": cmd("git", "-C", str(ROOT), "describe", "--always", "--dirty")}
    for key, value in more.items():
        env[key] = value() if callable(value) else value
    return env


def java_version():
    try:
        r = subprocess.run(["java", "-version"], capture_output=True, text=True, timeout=30)
        return (r.stderr or r.stdout).strip().splitlines()[0]
    except (OSError, IndexError):
        return "?"


class Report:
    """One benchmark run: its measurements (run()) and its human report
    (add(): lines and tables), written and printed by finish()."""

    def __init__(self, benchmark, args, env=None):
        self.benchmark = benchmark
        self.args = args
        self.env = env if env is not None else environment()
        self.started = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        self.runs = []
        self.parts = []

    def run(self, broker, results, round_no=None):
        """Records one broker start's (or one measured thing's) results."""
        self.runs.append({"broker": broker, "round": round_no, "results": results})
        return results

    def rounds(self, run_one):
        """Every broker of args.brokers in turn, each round (A B A B ...):
        run_one(name, round_no) -> results, recorded."""
        for r in range(1, self.args.rounds + 1):
            for name in self.args.brokers.split(","):
                self.run(name, run_one(name, r), r)

    def by_broker(self, name):
        return [r["results"] for r in self.runs if r["broker"] == name]

    def add(self, text):
        self.parts.append(text)

    def text(self):
        head = "\n".join(f"- {k}: {v}" for k, v in self.env.items())
        return "\n\n".join([head, *self.parts]) + "\n"

    def finish(self):
        """Writes OUT/<benchmark>-<stamp>.json and .md, prints the report; the paths."""
        out = self.args.out or ROOT / getattr(self.args, "build_dir", "build-bench") / "results"
        out.mkdir(parents=True, exist_ok=True)
        stamp = time.strftime("%Y%m%d-%H%M%S")
        report = self.text()
        record = {"schema": SCHEMA, "benchmark": self.benchmark, "command": sys.argv, "started": self.started,
                  "finished": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "environment": self.env,
                  "args": {k: str(v) for k, v in vars(self.args).items()}, "runs": self.runs, "report": report}
        json_path, md_path = out / f"{self.benchmark}-{stamp}.json", out / f"{self.benchmark}-{stamp}.md"
        json_path.write_text(json.dumps(record, indent=1))
        md_path.write_text(report)
        print(report, flush=True)
        log(f"results: {json_path} and .md")
        return json_path, md_path


def parser(doc):
    """An argument parser whose help is the module's docstring."""
    return argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
