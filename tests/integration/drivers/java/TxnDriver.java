// Transactions driver (org.apache.kafka:kafka-clients 4.4) for the java_txn
// scenarios (../../java_txn/). Same contract as CompatDriver: one JSON request
// file in, one JSON response line out ({"error": ...} on failure), bounded by
// timeout_ms; the ops are listed in ../README.md ("Transactions"). Each op
// runs a whole transactional scenario inside one JVM (producers, consumers at
// both isolation levels, the group's committed offsets through Admin) and
// reports what every step saw; pytest asserts on that. Exceptions a step is
// expected to raise are reported as their cause chain ("Class: message <- ...").
// The `hang` op prints {"open": ...} once its transaction is open and then waits
// to be killed (SIGKILL from the test): a producer that dies mid-transaction.
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.File;
import java.lang.reflect.Field;
import java.time.Duration;
import java.util.*;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.FeatureMetadata;
import org.apache.kafka.clients.admin.FinalizedVersionRange;
import org.apache.kafka.clients.consumer.*;
import org.apache.kafka.clients.producer.*;
import org.apache.kafka.clients.producer.internals.TransactionManager;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

public class TxnDriver {
  final CompatDriver base;  // bootstrap, deadline, common client settings, JSON helpers
  final JsonNode req;
  final ObjectNode out = CompatDriver.M.createObjectNode();

  TxnDriver(JsonNode req) {
    this.req = req;
    base = new CompatDriver(req);
  }

  long left() { return base.left(); }

  Duration upTo(long ms) { return Duration.ofMillis(Math.max(1, Math.min(ms, left()))); }

  // ------------------------------------------------------------ clients
  KafkaProducer<byte[], byte[]> producer(String txnId) {
    Properties p = base.common();
    p.put("key.serializer", ByteArraySerializer.class.getName());
    p.put("value.serializer", ByteArraySerializer.class.getName());
    // initTransactions/commit/abort and metadata waits: bounded, well inside the op's timeout.
    p.put("max.block.ms", String.valueOf(Math.min(15000, base.timeoutMs)));
    p.put("delivery.timeout.ms", String.valueOf(Math.min(15000, base.timeoutMs)));
    p.put("request.timeout.ms", String.valueOf(Math.min(10000, base.timeoutMs)));
    p.put("linger.ms", "5");
    p.put("acks", "all");
    if (txnId != null) {
      p.put("transactional.id", txnId);
      p.put("transaction.timeout.ms", String.valueOf(req.path("transaction_timeout_ms").asInt(60000)));
    }
    return new KafkaProducer<>(p);
  }

  KafkaConsumer<byte[], byte[]> consumer(String isolation, String group) {
    Properties p = base.common();
    p.put("key.deserializer", ByteArrayDeserializer.class.getName());
    p.put("value.deserializer", ByteArrayDeserializer.class.getName());
    p.put("enable.auto.commit", "false");
    p.put("auto.offset.reset", "earliest");
    p.put("fetch.max.wait.ms", "200");
    p.put("isolation.level", isolation);
    if (group != null) {
      p.put("group.id", group);
      p.put("session.timeout.ms", "10000");
      p.put("heartbeat.interval.ms", "1000");
    }
    return new KafkaConsumer<>(p);
  }

  /** Whether the producer took the transaction-version-2 path (KIP-890): the
   *  client decides from the broker's finalized transaction.version. */
  static boolean tv2(KafkaProducer<?, ?> prod) throws Exception {
    Field f = KafkaProducer.class.getDeclaredField("transactionManager");
    f.setAccessible(true);
    return ((TransactionManager) f.get(prod)).isTransactionV2Enabled();
  }

  /** The broker's finalized transaction.version (0 when not finalized). */
  short finalizedTxnVersion() throws Exception {
    try (Admin admin = Admin.create(base.common())) {
      FeatureMetadata md = admin.describeFeatures().featureMetadata().get();
      FinalizedVersionRange r = md.finalizedFeatures().get("transaction.version");
      return r == null ? 0 : r.maxVersionLevel();
    }
  }

  static String chain(Throwable t) {
    StringBuilder b = new StringBuilder();
    for (; t != null; t = t.getCause()) {
      if (b.length() > 0) b.append(" <- ");
      b.append(t.getClass().getSimpleName()).append(": ").append(t.getMessage());
      if (t.getCause() == t) break;
    }
    return b.toString();
  }

  static ProducerRecord<byte[], byte[]> rec(String topic, int partition, String value) {
    return new ProducerRecord<>(topic, partition, null, value.getBytes());
  }

  /** Sends `n` records `prefix-i` to each of `partitions` and waits for their acks. */
  void send(KafkaProducer<byte[], byte[]> prod, String topic, List<Integer> partitions, String prefix, int n)
      throws Exception {
    List<java.util.concurrent.Future<RecordMetadata>> fs = new ArrayList<>();
    for (int p : partitions) {
      for (int i = 0; i < n; i++) fs.add(prod.send(rec(topic, p, prefix + "-" + p + "-" + i)));
    }
    prod.flush();
    for (java.util.concurrent.Future<RecordMetadata> f : fs) f.get(Math.max(1, left()), java.util.concurrent.TimeUnit.MILLISECONDS);
  }

  static ObjectNode short_(ConsumerRecord<byte[], byte[]> r) {
    return CompatDriver.M.createObjectNode().put("p", r.partition()).put("o", r.offset())
        .put("k", r.key() == null ? null : new String(r.key())).put("v", new String(r.value()));
  }

  /** Reads `tps` from offset 0 at `isolation` for `ms` (or until every
   *  partition's position reaches its end offset, when `toEnd`): the records,
   *  the positions and the end offsets (the LSO under read_committed). */
  ObjectNode read(List<TopicPartition> tps, String isolation, long ms, boolean toEnd) {
    ObjectNode o = CompatDriver.M.createObjectNode();
    ArrayNode recs = o.putArray("records");
    long until = System.currentTimeMillis() + Math.min(ms, left());
    try (KafkaConsumer<byte[], byte[]> c = consumer(isolation, null)) {
      c.assign(tps);
      c.seekToBeginning(tps);
      Map<TopicPartition, Long> end = c.endOffsets(tps, upTo(10000));
      while (System.currentTimeMillis() < until) {
        for (ConsumerRecord<byte[], byte[]> r : c.poll(upTo(200))) recs.add(short_(r));
        if (toEnd) {
          boolean done = true;
          for (TopicPartition tp : tps) done &= c.position(tp, upTo(5000)) >= end.get(tp);
          if (done) break;
        }
      }
      ObjectNode pos = o.putObject("position"), ends = o.putObject("end");
      for (TopicPartition tp : tps) {
        pos.put(String.valueOf(tp.partition()), c.position(tp, upTo(5000)));
        ends.put(String.valueOf(tp.partition()), c.endOffsets(List.of(tp), upTo(5000)).get(tp));
      }
    }
    return o;
  }

  List<TopicPartition> tps(String topic, int n) {
    List<TopicPartition> l = new ArrayList<>();
    for (int i = 0; i < n; i++) l.add(new TopicPartition(topic, i));
    return l;
  }

  JsonNode run() throws Exception {
    String op = req.get("op").asText();
    switch (op) {
      case "commit_abort": TxnScenarios.commitAbort(this); break;
      case "fence": TxnScenarios.fence(this); break;
      case "lso": TxnScenarios.lso(this); break;
      case "offsets": TxnScenarios.offsets(this); break;
      case "hang": TxnScenarios.hang(this); break;
      case "member": TxnScenarios.member(this); break;
      case "read": {
        String topic = req.get("topic").asText();
        out.set("read", read(tps(topic, req.get("partitions").asInt()), req.path("isolation").asText("read_committed"),
                             req.path("read_ms").asLong(3000), req.path("to_end").asBoolean(false)));
        break;
      }
      default: throw new IllegalArgumentException("unknown op " + op);
    }
    return out;
  }

  public static void main(String[] args) throws Exception {
    if (args.length != 1) {
      System.err.println("usage: TxnDriver REQUEST.json");
      System.exit(2);
    }
    JsonNode req = CompatDriver.M.readTree(new File(args[0]));
    JsonNode res;
    try {
      res = new TxnDriver(req).run();
    } catch (Exception e) {
      e.printStackTrace();
      res = CompatDriver.M.createObjectNode().put("error", chain(e));
    }
    System.out.println(CompatDriver.M.writeValueAsString(res));
    System.out.flush();
    Runtime.getRuntime().halt(0);  // do not wait for (or let close()) client threads
  }
}
