// Java (org.apache.kafka:kafka-clients) driver for Skiff's compatibility
// suite. Reads one JSON request (see ../README.md) from the file named by its
// argument and prints one JSON response on stdout. Bounded by timeout_ms.
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.File;
import java.time.Duration;
import java.util.*;
import java.util.concurrent.*;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.*;
import org.apache.kafka.clients.producer.*;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

public class CompatDriver {
  static final ObjectMapper M = new ObjectMapper();
  static final Base64.Encoder B64 = Base64.getEncoder();
  static final Base64.Decoder UNB64 = Base64.getDecoder();

  static byte[] bytes(JsonNode n) { return n == null || n.isNull() ? null : UNB64.decode(n.asText()); }
  static String b64(byte[] b) { return b == null ? null : B64.encodeToString(b); }

  JsonNode req;
  String bootstrap;
  int timeoutMs;
  long deadline;

  CompatDriver(JsonNode req) {
    this.req = req;
    bootstrap = req.get("bootstrap").asText();
    timeoutMs = req.path("timeout_ms").asInt(30000);
    deadline = System.currentTimeMillis() + timeoutMs;
  }

  long left() { return Math.max(0, deadline - System.currentTimeMillis()); }

  Properties common() {
    Properties p = new Properties();
    p.put("bootstrap.servers", bootstrap);
    p.put("request.timeout.ms", String.valueOf(Math.min(10000, timeoutMs)));
    p.put("default.api.timeout.ms", String.valueOf(timeoutMs));
    p.put("reconnect.backoff.max.ms", "500");
    p.put("metadata.max.age.ms", "5000");
    return p;
  }

  KafkaProducer<byte[], byte[]> producer(boolean defaults) {
    Properties p = common();
    p.put("key.serializer", ByteArraySerializer.class.getName());
    p.put("value.serializer", ByteArraySerializer.class.getName());
    p.put("max.block.ms", String.valueOf(Math.min(5000, timeoutMs)));  // metadata wait: local broker
    p.put("delivery.timeout.ms", String.valueOf(Math.max(timeoutMs - 2000, 11000)));
    p.put("linger.ms", "5");
    if (!defaults) {
      // The scenarios test the data path; idempotence (InitProducerId) is
      // covered by the default-settings scenario.
      p.put("enable.idempotence", "false");
      // Without idempotence a retried batch can overtake the next one; the
      // scenarios check order, so one request in flight.
      p.put("max.in.flight.requests.per.connection", "1");
      p.put("acks", req.path("acks").asInt(-1) == 1 ? "1" : "all");
      p.put("compression.type", req.path("compression").asText("none"));
      p.put("max.request.size", String.valueOf(req.path("max_request_size").asInt(1048576)));
    }
    return new KafkaProducer<>(p);
  }

  KafkaConsumer<byte[], byte[]> consumer(String reset) {
    Properties p = common();
    p.put("key.deserializer", ByteArrayDeserializer.class.getName());
    p.put("value.deserializer", ByteArrayDeserializer.class.getName());
    p.put("enable.auto.commit", "false");
    p.put("auto.offset.reset", reset);
    p.put("fetch.max.wait.ms", "200");
    return new KafkaConsumer<>(p);
  }

  ObjectNode toJson(ConsumerRecord<byte[], byte[]> r) {
    ObjectNode o = M.createObjectNode();
    o.put("p", r.partition());
    o.put("o", r.offset());
    o.put("k", b64(r.key()));
    o.put("v", b64(r.value()));
    ArrayNode h = o.putArray("h");
    for (Header x : r.headers()) h.addArray().add(x.key()).add(b64(x.value()));
    o.put("ts", r.timestamp());
    return o;
  }

  ArrayNode produce(String topic, JsonNode records, boolean defaults) throws Exception {
    ArrayNode results = M.createArrayNode();
    try (KafkaProducer<byte[], byte[]> prod = producer(defaults)) {
      List<Future<RecordMetadata>> futures = new ArrayList<>();
      for (JsonNode r : records) {
        Integer part = r.path("p").isNull() || r.path("p").isMissingNode() ? null : r.get("p").asInt();
        Long ts = r.path("ts").isNull() || r.path("ts").isMissingNode() ? null : r.get("ts").asLong();
        List<Header> headers = new ArrayList<>();
        for (JsonNode h : r.path("h")) headers.add(new RecordHeader(h.get(0).asText(), bytes(h.get(1))));
        ProducerRecord<byte[], byte[]> pr =
            new ProducerRecord<>(topic, part, ts, bytes(r.get("k")), bytes(r.get("v")), headers);
        try {
          futures.add(prod.send(pr));
        } catch (Exception e) {
          CompletableFuture<RecordMetadata> f = new CompletableFuture<>();
          f.completeExceptionally(e);
          futures.add(f);
        }
      }
      prod.flush();
      for (Future<RecordMetadata> f : futures) {
        ObjectNode o = results.addObject();
        try {
          RecordMetadata md = f.get(Math.max(1, left()), TimeUnit.MILLISECONDS);
          o.put("p", md.partition());
          o.put("o", md.offset());
        } catch (ExecutionException e) {
          o.put("error", e.getCause().toString());
        } catch (Exception e) {
          o.put("error", e.toString());
        }
      }
      prod.close(Duration.ofMillis(Math.min(5000, left())));
    }
    return results;
  }

  JsonNode run() throws Exception {
    ObjectNode out = M.createObjectNode();
    String op = req.get("op").asText();
    String topic = req.path("topic").asText();
    switch (op) {
      case "metadata": {
        ArrayNode brokers = out.putArray("brokers");
        Properties ap = common();
        try (Admin admin = Admin.create(ap)) {
          for (Node n : admin.describeCluster().nodes().get(left(), TimeUnit.MILLISECONDS)) {
            brokers.addObject().put("id", n.id()).put("host", n.host()).put("port", n.port());
          }
        }
        ObjectNode topics = out.putObject("topics");
        try (KafkaConsumer<byte[], byte[]> c = consumer("earliest")) {
          if (req.path("topics").isArray()) {
            for (JsonNode t : req.get("topics")) {
              List<PartitionInfo> parts = c.partitionsFor(t.asText(), Duration.ofMillis(left()));
              topics.putObject(t.asText()).put("partitions", parts.size()).putNull("error");
            }
          } else {
            for (Map.Entry<String, List<PartitionInfo>> e : c.listTopics(Duration.ofMillis(left())).entrySet()) {
              topics.putObject(e.getKey()).put("partitions", e.getValue().size()).putNull("error");
            }
          }
        }
        return out;
      }
      case "produce":
        out.set("results", produce(topic, req.get("records"), req.path("defaults").asBoolean(false)));
        return out;
      case "consume": {
        Map<TopicPartition, Long> start = new HashMap<>();
        Map<Integer, Integer> want = new HashMap<>();
        int total = 0;
        for (Iterator<Map.Entry<String, JsonNode>> it = req.get("start").fields(); it.hasNext(); ) {
          Map.Entry<String, JsonNode> e = it.next();
          int p = Integer.parseInt(e.getKey());
          start.put(new TopicPartition(topic, p), e.getValue().asLong());
          int n = req.get("counts").get(e.getKey()).asInt();
          want.put(p, n);
          total += n;
        }
        ArrayNode recs = out.putArray("records");
        Map<Integer, Integer> got = new HashMap<>();
        int n = 0;
        try (KafkaConsumer<byte[], byte[]> c = consumer("none")) {
          c.assign(start.keySet());
          for (Map.Entry<TopicPartition, Long> e : start.entrySet()) c.seek(e.getKey(), e.getValue());
          while (n < total && left() > 0) {
            for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(Math.min(500, left())))) {
              if (got.getOrDefault(r.partition(), 0) < want.get(r.partition())) {
                got.merge(r.partition(), 1, Integer::sum);
                n++;
                recs.add(toJson(r));
              }
            }
          }
        }
        out.put("complete", n >= total);
        return out;
      }
      case "consume_reset": {
        TopicPartition tp = new TopicPartition(topic, req.get("partition").asInt());
        String reset = req.get("reset").asText();
        int expect = req.get("expect").asInt();
        long settle = System.currentTimeMillis() + req.path("settle_ms").asInt(2000);
        boolean produced = !reset.equals("latest");
        ArrayNode recs = out.putArray("records");
        try (KafkaConsumer<byte[], byte[]> c = consumer(reset)) {
          c.assign(List.of(tp));
          c.seek(tp, req.get("offset").asLong());
          while (recs.size() < expect && left() > 0) {
            for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(Math.min(300, left())))) recs.add(toJson(r));
            if (!produced && System.currentTimeMillis() > settle) {
              ArrayNode marker = M.createArrayNode();
              marker.addObject().put("p", tp.partition()).putNull("k").put("v", b64("marker".getBytes())).putArray("h");
              JsonNode res = produce(topic, marker, false).get(0);
              if (res.has("error")) throw new RuntimeException("marker: " + res.get("error").asText());
              produced = true;
            }
          }
          out.put("position", c.position(tp, Duration.ofMillis(Math.max(1, left()))));
        }
        return out;
      }
      case "list_offsets": {
        List<TopicPartition> tps = new ArrayList<>();
        for (JsonNode p : req.get("partitions")) tps.add(new TopicPartition(topic, p.asInt()));
        ObjectNode offsets = out.putObject("offsets");
        Duration d = Duration.ofMillis(left());
        try (KafkaConsumer<byte[], byte[]> c = consumer("earliest")) {
          String spec = req.get("spec").asText();
          if (spec.equals("earliest")) {
            c.beginningOffsets(tps, d).forEach((tp, o) -> offsets.put(String.valueOf(tp.partition()), o));
          } else if (spec.equals("latest")) {
            c.endOffsets(tps, d).forEach((tp, o) -> offsets.put(String.valueOf(tp.partition()), o));
          } else {
            Map<TopicPartition, Long> q = new HashMap<>();
            for (TopicPartition tp : tps) q.put(tp, req.get("timestamp").asLong());
            c.offsetsForTimes(q, d).forEach((tp, o) -> offsets.put(String.valueOf(tp.partition()), o == null ? -1 : o.offset()));
          }
        }
        return out;
      }
      case "group_consume": {
        // subscribe() as a member of `group`, poll until `expect` records
        // (then settle_ms more, to catch extras), commitSync, close (LeaveGroup).
        int expect = req.get("expect").asInt();
        int settleMs = req.path("settle_ms").asInt(1000);
        String assignor = req.path("assignor").asText("range");
        Properties p = common();
        p.put("key.deserializer", ByteArrayDeserializer.class.getName());
        p.put("value.deserializer", ByteArrayDeserializer.class.getName());
        p.put("group.id", req.get("group").asText());
        p.put("enable.auto.commit", "false");
        p.put("auto.offset.reset", "earliest");
        p.put("fetch.max.wait.ms", "200");
        p.put("session.timeout.ms", "10000");
        p.put("heartbeat.interval.ms", "1000");
        p.put("partition.assignment.strategy", assignor.equals("cooperative-sticky")
            ? CooperativeStickyAssignor.class.getName() : RangeAssignor.class.getName());
        ArrayNode recs = out.putArray("records");
        KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(p);
        try {
          c.subscribe(List.of(topic));
          long extra = -1;
          while (left() > 0 && (extra < 0 || System.currentTimeMillis() < extra)) {
            for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(Math.max(1, Math.min(200, left()))))) {
              recs.add(toJson(r));
            }
            if (recs.size() >= expect && extra < 0) extra = System.currentTimeMillis() + settleMs;
          }
          if (recs.size() > 0) c.commitSync(Duration.ofMillis(Math.max(1, left())));
        } finally {
          c.close(Duration.ofMillis(Math.max(1, Math.min(5000, left()))));
        }
        out.put("complete", recs.size() >= expect);
        return out;
      }
      default:
        throw new IllegalArgumentException("unknown op " + op);
    }
  }

  public static void main(String[] args) throws Exception {
    if (args.length != 1) {
      System.err.println("usage: CompatDriver REQUEST.json");
      System.exit(2);
    }
    if (args[0].equals("--warmup")) {
      // Loads the client classes once, for the class-data-sharing archive
      // scripts/install-test-clients.sh builds (faster JVM starts).
      CompatDriver d = new CompatDriver(M.readTree("{\"bootstrap\":\"127.0.0.1:1\",\"timeout_ms\":1000}"));
      d.producer(false).close(Duration.ZERO);
      d.consumer("earliest").close(Duration.ZERO);
      Admin.create(d.common()).close(Duration.ZERO);
      M.writeValueAsString(d.toJson(new ConsumerRecord<>("t", 0, 0, new byte[0], new byte[0])));
      System.exit(0);
    }
    JsonNode req = M.readTree(new File(args[0]));
    JsonNode res;
    try {
      res = new CompatDriver(req).run();
    } catch (Exception e) {
      e.printStackTrace();
      res = M.createObjectNode().put("error", e.toString());
    }
    System.out.println(M.writeValueAsString(res));
    System.out.flush();
    System.exit(0);  // do not wait for client threads
  }
}
