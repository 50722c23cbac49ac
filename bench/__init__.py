"""Skiff's benchmarks: one Python package, run from the repository root as
`python3 -m bench.<name> [--smoke] ...` (`python3 -m bench` lists them;
bench/README.md says what each measures, how long it takes and what it
needs). Not tests: each is bounded in time and uses loopback only.

  brokers.py   the one launcher of Skiff, Apache Kafka 4.4 and the ceiling
               (fresh data dir, free ports, readiness wait, bounded stop),
               the broker's CPU, RSS and context-switch readings, and where
               the binaries, jars and drivers come from
  clients.py   the load clients a benchmark runs: Kafka's perf tools,
               skiff_rdkafka_bench, skiff_first_produce
  results.py   the one results format: a JSON file per run (schema
               skiff-bench/1) beside the Markdown report every benchmark
               prints through the one table printer
"""
