"""testcontainers-python's Kafka module (written for Confluent's cp-kafka)
starting the Skiff image: its start script drives /etc/confluent/docker/
{bash-config,configure,launch} and waits for "[KafkaServer id=N] started",
both of which the image has; the one change is the image name. Produces and
consumes through the mapped port with kafka-python. Exits 0 only if all
passed.
    python3 testcontainers_python_check.py IMAGE
"""

import sys
import time
import uuid

from kafka import KafkaConsumer, KafkaProducer
from kafka.admin import KafkaAdminClient, NewTopic
from testcontainers.community.kafka import KafkaContainer


def check(ok, what):
    if not ok:
        raise SystemExit(f"FAILED: {what}")
    print(f"ok: {what}", flush=True)


def main():
    image = sys.argv[1]
    started = time.monotonic()
    with KafkaContainer(image) as kafka:  # the documented one-line change: the image
        bootstrap = kafka.get_bootstrap_server()
        print(f"ok: KafkaContainer started {image} in {time.monotonic() - started:.2f} s, bootstrap {bootstrap}")
        admin = KafkaAdminClient(bootstrap_servers=bootstrap)
        admin.create_topics([NewTopic("tc-python", num_partitions=2, replication_factor=1)])
        check("tc-python" in admin.list_topics(), "admin: created and listed tc-python")
        admin.close()
        producer = KafkaProducer(bootstrap_servers=bootstrap, acks="all")
        for i in range(50):
            producer.send("tc-python", f"v{i}".encode()).get(timeout=30)
        producer.close()
        consumer = KafkaConsumer(
            "tc-python",
            bootstrap_servers=bootstrap,
            group_id=f"check-{uuid.uuid4()}",
            auto_offset_reset="earliest",
            consumer_timeout_ms=15000,
        )
        got = []
        for record in consumer:
            got.append(record.value)
            if len(got) == 50:
                break
        consumer.close()
        check(len(got) == 50, f"produced and consumed 50 records ({len(got)})")
    print("passed")


if __name__ == "__main__":
    main()
