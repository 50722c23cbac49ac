"""Kafka 4.4's operator tools against the real broker, checked for the output
a user sees: kafka-features describe/upgrade, kafka-metadata-quorum describe
--status/--replication, kafka-leader-election, kafka-reassign-partitions
--list/--execute/--verify with its throttles (DescribeQuorum, UpdateFeatures and the features of
ApiVersions, ElectLeaders, List/AlterPartitionReassignments, DescribeCluster).
Runs once, in the java run, as test_admin's CLI scenarios do. Against an
external Kafka (SKIFF_COMPAT_EXTERNAL_BROKER) the Skiff-only levels are not
asserted, so the scenarios can be checked against the real thing."""
from __future__ import annotations

import json
import re

from harness.broker import SkiffBroker
import subprocess

from test_admin import kafka_jars, name, only_for, tool

FEATURES = "org.apache.kafka.tools.FeatureCommand"
QUORUM = "org.apache.kafka.tools.MetadataQuorumCommand"
ELECTION = "org.apache.kafka.tools.LeaderElectionCommand"
REASSIGN = "org.apache.kafka.tools.reassign.ReassignPartitionsCommand"
CLUSTER = "org.apache.kafka.tools.ClusterTool"
TOPICS = "org.apache.kafka.tools.TopicCommand"


def is_skiff(broker) -> bool:
    return getattr(broker, "external", True) is False


def test_kafka_features(client, broker):
    only_for(client, "java")
    b = broker.bootstrap
    out = tool(FEATURES, "--bootstrap-server", b, "describe")
    m = re.search(r"Feature: metadata\.version\s+SupportedMinVersion: (\S+)\s+SupportedMaxVersion: (\S+)\s+"
                  r"FinalizedVersionLevel: (\S+)\s+Epoch: (\d+)", out)
    assert m, out
    if is_skiff(broker):
        assert m.groups()[:3] == ("4.0-IV3", "4.0-IV3", "4.0-IV3"), out
        assert int(m.group(4)) > 0, out
        # nothing Skiff does not implement: group.version, metadata.version, share.version, streams.version,
        # transaction.version
        assert len(re.findall(r"^Feature: ", out, re.M)) == 5, out
        assert re.search(r"Feature: streams\.version\s+SupportedMinVersion: 0\s+SupportedMaxVersion: 1\s+"
                         r"FinalizedVersionLevel: 1", out), out
        assert re.search(r"Feature: share\.version\s+SupportedMinVersion: 0\s+SupportedMaxVersion: 2\s+"
                         r"FinalizedVersionLevel: 2", out), out
        assert re.search(r"Feature: group\.version\s+SupportedMinVersion: 0\s+SupportedMaxVersion: 1\s+"
                         r"FinalizedVersionLevel: 1", out), out
        assert re.search(r"Feature: transaction\.version\s+SupportedMinVersion: 0\s+SupportedMaxVersion: 2\s+"
                         r"FinalizedVersionLevel: 2", out), out
        # The level it has is a no-op; one it lacks is refused, naming what it has.
        out = tool(FEATURES, "--bootstrap-server", b, "upgrade", "--feature", "metadata.version=25")
        assert "metadata.version was upgraded to 25." in out, out
        out = tool(FEATURES, "--bootstrap-server", b, "upgrade", "--feature", "metadata.version=33", check=False)
        assert ("Could not upgrade metadata.version to 33. The update failed for all features since the following "
                "feature had an error: Invalid update version 33 for feature metadata.version. Local controller 1 "
                "only supports versions 25") in out, out
        out = tool(FEATURES, "--bootstrap-server", b, "upgrade", "--feature", "eligible.leader.replicas.version=1",
                   check=False)
        assert ("Could not upgrade eligible.leader.replicas.version to 1." in out
                and "does not support this feature" in out), out
        assert "FinalizedVersionLevel: 4.0-IV3" in tool(FEATURES, "--bootstrap-server", b, "describe")
        # share.version changes as in Kafka: down to 1 (no DLQ), disabled (share groups off), back to 2.
        out = tool(FEATURES, "--bootstrap-server", b, "downgrade", "--feature", "share.version=1")
        assert "share.version was downgraded to 1." in out, out
        assert re.search(r"Feature: share\.version\s+SupportedMinVersion: 0\s+SupportedMaxVersion: 2\s+"
                         r"FinalizedVersionLevel: 1", tool(FEATURES, "--bootstrap-server", b, "describe"))
        out = tool(FEATURES, "--bootstrap-server", b, "downgrade", "--feature", "share.version=2", check=False)
        assert ("Could not downgrade share.version to 2. The update failed for all features since the following "
                "feature had an error: Invalid update version 2 for feature share.version. Can't downgrade to a "
                "newer version.") in out, out
        out = tool(FEATURES, "--bootstrap-server", b, "disable", "--feature", "share.version")
        assert "share.version was disabled." in out, out
        assert re.search(r"Feature: share\.version\s+SupportedMinVersion: 0\s+SupportedMaxVersion: 2\s+"
                         r"FinalizedVersionLevel: 0", tool(FEATURES, "--bootstrap-server", b, "describe"))
        out = tool(FEATURES, "--bootstrap-server", b, "upgrade", "--feature", "share.version=2")
        assert "share.version was upgraded to 2." in out, out


def test_kafka_metadata_quorum(client, broker):
    only_for(client, "java")
    b = broker.bootstrap
    out = tool(QUORUM, "--bootstrap-server", b, "describe", "--status")
    fields = dict(re.findall(r"^(\w+):\s+(.*)$", out, re.M))
    assert fields.get("LeaderId") == "1" and fields.get("MaxFollowerLag") == "0", out
    assert fields.get("CurrentObservers") == "[]", out
    voters = json.loads(fields["CurrentVoters"])
    assert [v["id"] for v in voters] == [1], out
    if is_skiff(broker):
        assert fields.get("LeaderEpoch") == "1", out
        port = b.rsplit(":", 1)[1]
        assert len(voters[0]["endpoints"]) == 1 and voters[0]["endpoints"][0].endswith(f":{port}"), out
    out = tool(QUORUM, "--bootstrap-server", b, "describe", "--replication")
    rows = [line.split() for line in out.splitlines() if line.split()[:1] == ["1"]]
    assert len(rows) == 1 and rows[0][-1] == "Leader", out


def tool_exit(cls: str, *args: str) -> tuple[int, str]:
    """Runs a Kafka tool as tool() does; its exit code and output."""
    p = subprocess.run(["java", "-Xshare:auto", "-XX:TieredStopAtLevel=1", "-cp", f"{kafka_jars()}/*",
                        "-Dlog4j2.level=warn", cls, *args], capture_output=True, text=True, timeout=90)
    return p.returncode, p.stdout + p.stderr


def test_kafka_quorum_admin_tools(client, broker, tmp_path):
    """kafka-metadata-quorum add-controller / remove-controller and kafka-cluster
    unregister (AddRaftVoter, RemoveRaftVoter, UnregisterBroker). Against a
    one-node Kafka 4.4 (scripts/kafka-broker.sh, formatted --standalone; its
    voter directory id nMe2owBbS1i5LzhjxHl5gA, cluster id _0AoQRG3QIyAnGafabl4og)
    the tools printed, each exiting 1 but where said:
      add-controller, controller.properties of node 1 (its own log dir):
        org.apache.kafka.common.errors.DuplicateVoterException: The voter id for
        ReplicaKey(id=1, directoryId=nMe2owBbS1i5LzhjxHl5gA) is already part of the
        set of voters [ReplicaKey(id=1, directoryId=nMe2owBbS1i5LzhjxHl5gA)].
      add-controller, node 2 (directory Ca7nk3kzQ9WGxCDvNDIJ5g, nothing listening):
        org.apache.kafka.common.errors.TimeoutException: Aborted add voter operation
        for since API_VERSIONS returned an error BROKER_NOT_AVAILABLE
      add-controller --dry-run (exit 0):
        DRY RUN of adding controller 1 with directory id nMe2owBbS1i5LzhjxHl5gA and
        endpoints: CONTROLLER://127.0.0.1:35055
      remove-controller -i 1 -d nMe2owBbS1i5LzhjxHl5gA (the only voter), and -i 2:
        org.apache.kafka.common.errors.VoterNotFoundException: Cannot remove voter
        ReplicaKey(id=1, directoryId=nMe2owBbS1i5LzhjxHl5gA) from the set of voters
        [ReplicaKey(id=1, directoryId=nMe2owBbS1i5LzhjxHl5gA)]
      kafka-cluster unregister --id 5:
        org.apache.kafka.common.errors.BrokerIdNotRegisteredException: Broker ID 5 is
        not currently registered
      kafka-cluster unregister --id 1 (exit 0; Kafka then has no broker until it
        restarts, Skiff stays registered): Broker 1 is no longer registered.
    """
    only_for(client, "java")
    b = broker.bootstrap
    status = tool(QUORUM, "--bootstrap-server", b, "describe", "--status")
    voters = json.loads(dict(re.findall(r"^(\w+):\s+(.*)$", status, re.M))["CurrentVoters"])
    own_dir = voters[0]["directoryId"]
    own = f"ReplicaKey(id=1, directoryId={own_dir})"

    def controller_props(node: int, directory: str):
        data = tmp_path / f"node{node}"
        data.mkdir()
        (data / "meta.properties").write_text(
            f"node.id={node}\ndirectory.id={directory}\nversion=1\ncluster.id=AAAAAAAAAAAAAAAAAAAAAA\n")
        props = tmp_path / f"controller{node}.properties"
        props.write_text(f"node.id={node}\nprocess.roles=controller\ncontroller.listener.names=CONTROLLER\n"
                         f"listeners=CONTROLLER://127.0.0.1:19399\nadvertised.listeners=CONTROLLER://127.0.0.1:19399\n"
                         f"log.dirs={data}\n")
        return str(props)

    def add(props: str, *more: str) -> str:
        rc, out = tool_exit(QUORUM, "--bootstrap-server", b, "--command-config", props, "add-controller", *more)
        assert rc == (0 if more else 1), out
        return out
    node1 = controller_props(1, own_dir)
    out = add(node1)
    assert (f"DuplicateVoterException: The voter id for {own} is already part of the set of voters "
            f"[{own}].") in out, out
    out = add(node1, "--dry-run")
    assert f"DRY RUN of adding controller 1 with directory id {own_dir} and endpoints: CONTROLLER://127.0.0.1:19399" \
        in out, out
    out = add(controller_props(2, "Ca7nk3kzQ9WGxCDvNDIJ5g"))
    assert ("TimeoutException: Aborted add voter operation for since API_VERSIONS returned an error "
            "BROKER_NOT_AVAILABLE") in out, out
    for node, directory in ((1, own_dir), (2, "Ca7nk3kzQ9WGxCDvNDIJ5g")):
        rc, out = tool_exit(QUORUM, "--bootstrap-server", b, "remove-controller", "-i", str(node), "-d", directory)
        assert rc == 1 and (f"VoterNotFoundException: Cannot remove voter ReplicaKey(id={node}, directoryId={directory}) "
                f"from the set of voters [{own}]") in out, out
    rc, out = tool_exit(CLUSTER, "unregister", "--bootstrap-server", b, "--id", "5")
    assert rc == 1 and "BrokerIdNotRegisteredException: Broker ID 5 is not currently registered" in out, out
    if is_skiff(broker):  # Kafka is left without a broker
        assert "Broker 1 is no longer registered." in tool(CLUSTER, "unregister", "--bootstrap-server", b, "--id", "1")
        assert "LeaderId:" in tool(QUORUM, "--bootstrap-server", b, "describe", "--status")


def test_kafka_leader_election(client, broker):
    only_for(client, "java")
    b = broker.bootstrap
    t = name("elect")
    tool(TOPICS, "--bootstrap-server", b, "--create", "--topic", t, "--partitions", "2")
    # Every partition is led by its preferred (only) replica: nothing to elect, nothing printed.
    out = tool(ELECTION, "--bootstrap-server", b, "--election-type", "preferred", "--all-topic-partitions")
    assert "could not be elected" not in out and "Successfully" not in out, out
    out = tool(ELECTION, "--bootstrap-server", b, "--election-type", "preferred", "--topic", t, "--partition", "1")
    assert f"Valid replica already elected for partitions {t}-1" in out, out
    out = tool(ELECTION, "--bootstrap-server", b, "--election-type", "unclean", "--topic", t, "--partition", "7",
               check=False)
    assert f"UnknownTopicOrPartitionException: No such partition as {t}-7" in out, out
    assert "1 replica(s) could not be elected" in out, out


def test_kafka_reassign_partitions(client, broker, tmp_path):
    only_for(client, "java")
    b = broker.bootstrap
    t = name("reassign")
    tool(TOPICS, "--bootstrap-server", b, "--create", "--topic", t, "--partitions", "2")
    assert "No partition reassignments found." in tool(REASSIGN, "--bootstrap-server", b, "--list")

    same = tmp_path / "same.json"
    same.write_text(json.dumps({"version": 1, "partitions": [{"topic": t, "partition": 0, "replicas": [1]}]}))
    out = tool(REASSIGN, "--bootstrap-server", b, "--execute", "--reassignment-json-file", str(same))
    assert f"Successfully started partition reassignment for {t}-0" in out, out
    # --verify then clears the replication throttles with IncrementalAlterConfigs
    # (DELETE leader/follower.replication.throttled.rate and
    # replica.alter.log.dirs.io.max.bytes.per.second on the broker, the
    # *.replication.throttled.replicas of the topic) and must succeed.
    out = tool(REASSIGN, "--bootstrap-server", b, "--verify", "--reassignment-json-file", str(same))
    assert f"Reassignment of partition {t}-0 is completed." in out, out
    assert "Clearing broker-level throttles on broker 1" in out, out
    assert f"Clearing topic-level throttles on topic {t}" in out, out
    # A throttle set by --execute --throttle is cleared by --verify, as on Kafka.
    out = tool(REASSIGN, "--bootstrap-server", b, "--execute", "--reassignment-json-file", str(same),
               "--throttle", "5000000")
    assert "The inter-broker throttle limit was set to 5000000 B/s" in out, out
    configs = "org.apache.kafka.tools.ConfigCommand"
    described = tool(configs, "--bootstrap-server", b, "--describe", "--entity-type", "brokers", "--entity-name", "1")
    assert "leader.replication.throttled.rate=5000000" in described, described
    tool(REASSIGN, "--bootstrap-server", b, "--verify", "--reassignment-json-file", str(same))
    described = tool(configs, "--bootstrap-server", b, "--describe", "--entity-type", "brokers", "--entity-name", "1")
    assert "throttled.rate" not in described, described
    assert "No partition reassignments found." in tool(REASSIGN, "--bootstrap-server", b, "--list")

    # Another broker: refused by the tool from DescribeCluster before it asks us.
    other = tmp_path / "other.json"
    other.write_text(json.dumps({"version": 1, "partitions": [{"topic": t, "partition": 1, "replicas": [7]}]}))
    out = tool(REASSIGN, "--bootstrap-server", b, "--execute", "--reassignment-json-file", str(other), check=False)
    assert "Unknown broker id 7" in out, out


def test_retention_time_keys_dynamic(client, broker):
    """log.retention.hours/minutes and log.roll.hours change at runtime with Kafka's precedence
    (ms > minutes > hours) and are described with their family as synonyms."""
    only_for(client, "java")
    b = broker.bootstrap
    configs = "org.apache.kafka.tools.ConfigCommand"

    def alter(*args, check=True):
        return tool(configs, "--bootstrap-server", b, "--alter", "--entity-type", "brokers", "--entity-name", "1",
                    *args, check=check)

    def describe_all():
        return tool(configs, "--bootstrap-server", b, "--describe", "--all", "--entity-type", "brokers",
                    "--entity-name", "1")

    def topic_retention(t):
        out = tool(configs, "--bootstrap-server", b, "--describe", "--all", "--entity-type", "topics",
                   "--entity-name", t)
        return re.search(r"^  retention\.ms=(\S+) ", out, re.M).group(1)

    alter("--add-config", "log.retention.hours=2,log.roll.hours=3")
    try:
        out = describe_all()
        if is_skiff(broker):
            assert ("log.retention.hours=2 sensitive=false synonyms={DYNAMIC_BROKER_CONFIG:log.retention.hours=2, "
                    "DEFAULT_CONFIG:log.retention.hours=168}") in out, out
            assert ("log.roll.hours=3 sensitive=false synonyms={DYNAMIC_BROKER_CONFIG:log.roll.hours=3, "
                    "DEFAULT_CONFIG:log.roll.hours=168}") in out, out
        t = name("hours")
        tool(TOPICS, "--bootstrap-server", b, "--create", "--topic", t, "--partitions", "1")
        assert topic_retention(t) == str(2 * 3600 * 1000)
        # minutes beats hours; ms beats both, and all three are the family of log.retention.ms.
        alter("--add-config", "log.retention.minutes=30")
        assert topic_retention(t) == str(30 * 60 * 1000)
        alter("--add-config", "log.retention.ms=86400000")
        assert topic_retention(t) == "86400000"
        out = describe_all()
        if is_skiff(broker):
            assert ("log.retention.ms=86400000 sensitive=false synonyms={DYNAMIC_BROKER_CONFIG:log.retention.ms=86400000, "
                    "DYNAMIC_BROKER_CONFIG:log.retention.minutes=30, DYNAMIC_BROKER_CONFIG:log.retention.hours=2, "
                    "DEFAULT_CONFIG:log.retention.hours=168}") in out, out
        alter("--delete-config", "log.retention.ms,log.retention.minutes")
        assert topic_retention(t) == str(2 * 3600 * 1000)
    finally:
        alter("--delete-config", "log.retention.hours,log.roll.hours,log.retention.minutes,log.retention.ms",
              check=False)


def test_thread_pools_resized_live(client, broker):
    """num.io.threads and num.network.threads through kafka-configs: within Kafka's half-to-double
    bound applied live (the broker keeps answering), beyond it refused with Kafka's message."""
    only_for(client, "java")
    b = broker.bootstrap
    configs = "org.apache.kafka.tools.ConfigCommand"

    def alter(*args, check=True):
        return tool(configs, "--bootstrap-server", b, "--alter", "--entity-type", "brokers", "--entity-name", "1",
                    *args, check=check)

    # The defaults follow the machine's CPUs (Skiff) or are Kafka's 3 and 8: start from what is set.
    described = tool(configs, "--bootstrap-server", b, "--describe", "--entity-type", "brokers", "--entity-name", "1",
                     "--all")
    net, io = (int(re.search(rf"^\s*{k}=(\d+) ", described, re.M).group(1))
               for k in ("num.network.threads", "num.io.threads"))
    try:
        out = alter("--add-config", f"num.network.threads={2 * net + 1}", check=False)  # more than double
        assert (f"Dynamic thread count update validation failed for num.network.threads={2 * net + 1}, value should "
                f"not be greater than double the current value {net}") in out, out
        alter("--add-config", f"num.network.threads={2 * net},num.io.threads={2 * io}")
        out = alter("--add-config", f"num.io.threads={io - 1}", check=False)  # less than half
        assert f"value should be at least half the current value {2 * io}" in out, out
        alter("--add-config", f"num.network.threads={net},num.io.threads={io}")
        t = name("threads")
        tool(TOPICS, "--bootstrap-server", b, "--create", "--topic", t, "--partitions", "1")
        assert t in tool(TOPICS, "--bootstrap-server", b, "--list").split()
        if is_skiff(broker):
            log = broker.log_path.read_text()
            assert (f"num.network.threads: {net} -> {2 * net} processors" in log
                    and f"num.io.threads: {io} -> {2 * io}" in log), log[-2000:]
            assert f"num.network.threads: {2 * net} -> {net} processors" in log, log[-2000:]
    finally:
        alter("--delete-config", "num.network.threads,num.io.threads", check=False)


def test_kafka_configs_groups(client, own_broker):
    """kafka-configs --entity-type groups (KIP-848's GROUP config resource): a group's
    consumer.session.timeout.ms (and a streams group's streams.num.standby.replicas) set, described with its broker synonym, refused outside the
    broker's bounds with Kafka's message, and still there after a restart and after kill -9."""
    only_for(client, "java")
    configs = "org.apache.kafka.tools.ConfigCommand"
    g = name("cfg-group")

    def run(*args, check=True):
        return tool(configs, "--bootstrap-server", own_broker.bootstrap, "--entity-type", "groups",
                    "--entity-name", g, *args, check=check)

    out = run("--alter", "--add-config", "consumer.session.timeout.ms=50000")
    assert f"Completed updating config for group {g}." in out, out
    line = ("consumer.session.timeout.ms=50000 sensitive=false synonyms={DYNAMIC_GROUP_CONFIG:"
            "consumer.session.timeout.ms=50000, DEFAULT_CONFIG:group.consumer.session.timeout.ms=45000}")
    assert line in run("--describe"), run("--describe")
    out = run("--describe", "--all")
    assert ("consumer.heartbeat.interval.ms=5000 sensitive=false synonyms={DEFAULT_CONFIG:"
            "group.consumer.heartbeat.interval.ms=5000}") in out, out
    out = run("--alter", "--add-config", "consumer.session.timeout.ms=1000", check=False)
    assert "consumer.session.timeout.ms must be in the range 45000 to 60000 inclusive." in out, out
    out = run("--alter", "--add-config", "bogus.key=1", check=False)
    assert "Unknown group config name: bogus.key" in out, out

    # KIP-1071's streams.* keys: Kafka's bound on the standby replicas, and the synonym.
    out = run("--alter", "--add-config", "streams.num.standby.replicas=3", check=False)
    assert "streams.num.standby.replicas must be less than or equal to 2" in out, out
    run("--alter", "--add-config", "streams.num.standby.replicas=1")
    assert ("streams.num.standby.replicas=1 sensitive=false synonyms={DYNAMIC_GROUP_CONFIG:"
            "streams.num.standby.replicas=1, DEFAULT_CONFIG:group.streams.num.standby.replicas=0}") in run("--describe")
    run("--alter", "--delete-config", "streams.num.standby.replicas")

    # The rest of Kafka 4.4's group keys: an internal one is described once set.
    assert "streams.num.warmup.replicas" not in run("--describe")
    run("--alter", "--add-config", "streams.num.warmup.replicas=1,streams.rack.aware.assignment.tags=[zone,rack]")
    described = run("--describe")
    assert "streams.num.warmup.replicas=1 sensitive=false" in described, described
    assert "streams.rack.aware.assignment.tags=zone,rack sensitive=false" in described, described
    run("--alter", "--delete-config", "streams.num.warmup.replicas,streams.rack.aware.assignment.tags")
    out = run("--alter", "--add-config", "streams.assignor.name=balanced", check=False)
    assert ("streams.assignor.name 'balanced' is not a registered task assignor. "
            "Registered assignors are: [sticky].") in out, out

    if not isinstance(own_broker, SkiffBroker):  # SKIFF_COMPAT_OWN_BROKER=kafka: no restart of Kafka here
        return
    own_broker.restart()
    assert line in run("--describe")
    run("--alter", "--add-config", "consumer.session.timeout.ms=55000")
    own_broker.kill9()  # acknowledged means on disk
    own_broker.start()
    assert "consumer.session.timeout.ms=55000 sensitive=false" in run("--describe")
    run("--alter", "--delete-config", "consumer.session.timeout.ms")
    assert "consumer.session.timeout.ms" not in run("--describe")
