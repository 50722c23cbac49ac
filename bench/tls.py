"""TLS cost, Skiff beside Apache Kafka 4.4: produce and consume throughput
over an SSL listener as a ratio to PLAINTEXT on the same broker in the same
run, for both brokers configured alike (PEM key material, server-auth TLS,
one partition). Clients: Kafka's own ProducerPerformance and
ConsumerPerformance (Java, from the cached jars), the same for every run.
Certificates are made at run time with the openssl CLI in a temp dir.
Not a test; loopback only; every step bounded (--client-timeout).

  python3 -m bench.tls [--smoke] [--records 200000] [--size 1024] [--brokers skiff,kafka]
"""
import shutil
import sys

from bench import brokers, clients
from bench.brokers import log
from bench.results import Report, add_out_arg, environment, java_version, parser, table


def bench(args, name, work):
    tls = brokers.free_port()
    broker = brokers.new(args, name, work, listeners={"SSL": tls}, props=brokers.tls_props(name, work))
    log(f"{broker.name}: starting")
    res = {}
    with brokers.running(broker):
        for proto, port, config in (("PLAINTEXT", broker.port, work / "plain.properties"),
                                    ("SSL", tls, work / "ssl.properties")):
            topic = f"bench-{proto.lower()}"
            produced = clients.java_produce(args.jars, topic, args.records, args.size, [
                "--command-config", config, "--command-property", f"bootstrap.servers=localhost:{port}", "acks=1",
                "linger.ms=5", "batch.size=65536"], args.client_timeout)
            consumed = clients.java_consume(args.jars, f"localhost:{port}", topic, args.records, args.client_timeout,
                                            "--command-config", config)
            res[proto] = {"produce_mb_per_s": produced["mb_per_s"], "consume_mb_per_s": consumed["mb_per_s"]}
            log(f"{broker.name} {proto}: produce {produced['mb_per_s']:.1f} MB/s, "
                f"consume {consumed['mb_per_s']:.1f} MB/s")
    return res


def main():
    p = parser(__doc__)
    p.add_argument("--records", type=int, default=200000)
    p.add_argument("--size", type=int, default=1024)
    p.add_argument("--brokers", default="skiff,kafka")
    p.add_argument("--client-timeout", type=float, default=180)
    p.add_argument("--smoke", action="store_true", help="2,000 records: checks the benchmark works")
    p.add_argument("--jars", help="Kafka's jars (default: scripts/fetch_kafka_jars.sh's cache)")
    brokers.add_build_args(p)
    add_out_arg(p)
    args = p.parse_args()
    if args.smoke:
        args.records = 2000
    brokers.stop_on_sigterm()
    brokers.need(args, "skiff")
    args.jars = args.jars or brokers.kafka_jars(args.kafka_version)
    report = Report("tls", args, environment(kafka=args.kafka_version, java=java_version))
    work = brokers.scratch("bench-tls-")
    try:
        brokers.make_certs(work)
        (work / "ssl.properties").write_text(
            f"security.protocol=SSL\nssl.truststore.type=PEM\nssl.truststore.location={work / 'ca.pem'}\n")
        (work / "plain.properties").write_text("security.protocol=PLAINTEXT\n")
        for name in args.brokers.split(","):
            report.run(name, bench(args, name, work))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    rows = []
    for run in report.runs:
        plain, ssl = run["results"]["PLAINTEXT"], run["results"]["SSL"]
        pp, pc, sp, sc = (plain["produce_mb_per_s"], plain["consume_mb_per_s"], ssl["produce_mb_per_s"],
                          ssl["consume_mb_per_s"])
        rows.append([run["broker"], f"{pp:.1f}", f"{sp:.1f}", f"{sp / pp:.2f}", f"{pc:.1f}", f"{sc:.1f}",
                     f"{sc / pc:.2f}"])
    report.add(f"{args.records} records of {args.size} B, acks=1, one partition, Java perf tools, MB/s")
    report.add(table(["broker", "produce PLAINTEXT", "produce SSL", "ratio", "consume PLAINTEXT", "consume SSL",
                      "ratio"], rows))
    report.finish()


if __name__ == "__main__":
    sys.exit(main())
