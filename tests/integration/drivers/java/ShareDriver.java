// Share-group (KIP-932) driver for the suite's share scenarios
// (test_share_groups.py, harness/share.py): kafka-clients 4.4.0's
// KafkaShareConsumer plus the admin/producer steps the scenarios need.
// Command line: ShareDriver OP key=value... ; prints JSON lines on stdout
// (one per event, flushed at once, so a test can read them while it runs and
// after a SIGKILL). Every run is bounded by timeout_ms. The consume contract
// is the same for the confluent-kafka and franz-go share drivers
// (drivers/python/share_consumer.py, drivers/go/share.go); see drivers/README.md.
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.File;
import java.time.Duration;
import java.util.*;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.*;
import org.apache.kafka.clients.consumer.*;
import org.apache.kafka.clients.producer.*;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

public class ShareDriver {
  static final ObjectMapper M = new ObjectMapper();
  final Map<String, String> a = new HashMap<>();
  final long deadline;

  ShareDriver(String[] args) {
    for (int i = 1; i < args.length; i++) {
      int eq = args[i].indexOf('=');
      if (eq < 0) throw new IllegalArgumentException("expected key=value, got " + args[i]);
      a.put(args[i].substring(0, eq), args[i].substring(eq + 1));
    }
    deadline = System.currentTimeMillis() + Long.parseLong(a.getOrDefault("timeout_ms", "60000"));
  }

  String arg(String k) {
    String v = a.get(k);
    if (v == null) throw new IllegalArgumentException("missing " + k + "=");
    return v;
  }

  int num(String k, int dflt) { return a.containsKey(k) ? Integer.parseInt(a.get(k)) : dflt; }
  long left() { return Math.max(0, deadline - System.currentTimeMillis()); }

  static synchronized void emit(ObjectNode o) {
    try {
      System.out.println(M.writeValueAsString(o));
    } catch (Exception e) {
      throw new RuntimeException(e);
    }
    System.out.flush();
  }

  static ObjectNode ev(String name) { return M.createObjectNode().put("ev", name); }

  /** "Class: message <- Class: message" down the cause chain. */
  static String chain(Throwable t) {
    StringBuilder sb = new StringBuilder();
    for (; t != null; t = t.getCause()) {
      if (sb.length() > 0) sb.append(" <- ");
      sb.append(t.getClass().getSimpleName()).append(": ").append(t.getMessage());
    }
    return sb.toString();
  }

  Properties common() {
    Properties p = new Properties();
    p.put("bootstrap.servers", arg("bootstrap"));
    p.put("request.timeout.ms", "10000");
    p.put("default.api.timeout.ms", "20000");
    p.put("reconnect.backoff.max.ms", "500");
    p.put("metadata.max.age.ms", "5000");
    return p;
  }

  // ------------------------------------------------------------------ consume
  /** What the rule says to do with a record, in explicit mode. */
  static AcknowledgeType decide(String rule, ConsumerRecord<String, String> r) {
    int dc = r.deliveryCount().orElse((short) 1);
    if (rule.equals("accept")) return AcknowledgeType.ACCEPT;
    if (rule.equals("release")) return AcknowledgeType.RELEASE;
    if (rule.equals("reject")) return AcknowledgeType.REJECT;
    if (rule.startsWith("release_until:"))  // release while the delivery count is below N
      return dc < Integer.parseInt(rule.substring(14)) ? AcknowledgeType.RELEASE : AcknowledgeType.ACCEPT;
    if (rule.equals("reject_even")) return r.offset() % 2 == 0 ? AcknowledgeType.REJECT : AcknowledgeType.ACCEPT;
    if (rule.equals("mixed"))  // offset % 3: 0 reject, 1 release at delivery 1 then accept, 2 accept
      return r.offset() % 3 == 0 ? AcknowledgeType.REJECT
          : r.offset() % 3 == 1 && dc == 1 ? AcknowledgeType.RELEASE : AcknowledgeType.ACCEPT;
    if (rule.equals("release_even"))
      return r.offset() % 2 == 0 && dc == 1 ? AcknowledgeType.RELEASE : AcknowledgeType.ACCEPT;
    throw new IllegalArgumentException("unknown ack rule " + rule);
  }

  boolean stopRequested() {
    String f = a.get("stop_file");
    return f != null && new File(f).exists();
  }

  static ObjectNode commitResults(String name, Map<TopicIdPartition, Optional<KafkaException>> res) {
    ObjectNode o = ev(name);
    ObjectNode parts = o.putObject("partitions");
    res.forEach((tp, err) -> parts.put(tp.topic() + "-" + tp.partition(), err.map(ShareDriver::chain).orElse(null)));
    return o;
  }

  void consume() throws Exception {
    String ack = a.getOrDefault("ack", "implicit");
    boolean explicit = !ack.equals("implicit");
    Properties p = common();
    p.put("group.id", arg("group"));
    p.put("client.id", a.getOrDefault("name", "java-share"));
    p.put("key.deserializer", StringDeserializer.class.getName());
    p.put("value.deserializer", StringDeserializer.class.getName());
    p.put("share.acknowledgement.mode", explicit ? "explicit" : "implicit");
    if (a.containsKey("acquire")) p.put("share.acquire.mode", a.get("acquire"));
    if (a.containsKey("max_poll_records")) p.put("max.poll.records", a.get("max_poll_records"));
    int maxRecords = num("max_records", Integer.MAX_VALUE);
    long holdMs = num("hold_ms", 0);
    int received = 0;
    String closeError = null;
    KafkaShareConsumer<String, String> c = new KafkaShareConsumer<>(p);
    try {
      c.setAcknowledgementCommitCallback((offsets, e) -> offsets.forEach((tp, offs) -> {
        ObjectNode o = ev("ack_result").put("t", tp.topic()).put("p", tp.partition());
        ArrayNode arr = o.putArray("offsets");
        new TreeSet<>(offs).forEach(arr::add);
        o.put("error", e == null ? null : chain(e));
        emit(o);
      }));
      c.subscribe(Arrays.asList(arg("topics").split(",")));
      emit(ev("ready"));
      boolean holding = false;
      while (left() > 0 && !stopRequested() && received < maxRecords) {
        ConsumerRecords<String, String> recs = c.poll(Duration.ofMillis(Math.min(500, Math.max(1, left()))));
        if (recs.count() > 0 && a.containsKey("poll_sizes")) emit(ev("poll").put("n", recs.count()));
        for (ConsumerRecord<String, String> r : recs) {
          received++;
          String what = ack.equals("none") ? "none" : explicit ? decide(ack, r).toString().toLowerCase() : "implicit";
          emit(ev("rec").put("t", r.topic()).put("p", r.partition()).put("o", r.offset())
                   .put("dc", r.deliveryCount().map(Short::intValue).orElse(-1)).put("k", r.key())
                   .put("v", r.value()).put("ack", what));
          if (explicit && !ack.equals("none")) c.acknowledge(r, decide(ack, r));
          if (a.containsKey("sleep_ms")) Thread.sleep(Long.parseLong(a.get("sleep_ms")));  // processing time
        }
        if (recs.count() > 0 && explicit && !ack.equals("none")) emit(commitResults("commit", c.commitSync()));
        if (recs.count() > 0 && !explicit && a.getOrDefault("commit", "").equals("sync"))
          emit(commitResults("commit", c.commitSync()));
        if (recs.count() > 0 && ack.equals("none")) {
          holding = true;
          // Holds the acquired records without polling (the heartbeat
          // thread keeps the membership): their locks run out meanwhile.
          emit(ev("holding").put("n", recs.count()));
          long until = System.currentTimeMillis() + holdMs;
          while (System.currentTimeMillis() < until && left() > 0 && !stopRequested()) Thread.sleep(50);
          if (a.containsKey("late_ack")) {
            AcknowledgeType t = AcknowledgeType.valueOf(a.get("late_ack").toUpperCase());
            for (ConsumerRecord<String, String> r : recs) c.acknowledge(r, t);
            try {
              emit(commitResults("late_commit", c.commitSync()));
            } catch (Exception e) {
              emit(ev("late_commit").put("error", chain(e)));
            }
          }
          break;
        }
      }
      emit(ev("closing").put("received", received).put("holding", holding));
    } catch (Exception e) {
      closeError = chain(e);
      emit(ev("error").put("error", closeError));
    } finally {
      try {
        c.close(Duration.ofMillis(Math.max(5000, Math.min(20000, left()))));
      } catch (Exception e) {
        closeError = chain(e);
      }
    }
    emit(ev("closed").put("received", received).put("error", closeError));
  }

  // ---------------------------------------------------------------- the rest
  void groupConfig() throws Exception {
    List<AlterConfigOp> ops = new ArrayList<>();
    for (String kv : arg("set").split(";")) {
      int eq = kv.indexOf('=');
      ops.add(new AlterConfigOp(new ConfigEntry(kv.substring(0, eq), kv.substring(eq + 1)), AlterConfigOp.OpType.SET));
    }
    try (Admin ad = Admin.create(common())) {
      ConfigResource res = new ConfigResource(ConfigResource.Type.GROUP, arg("group"));
      try {
        ad.incrementalAlterConfigs(Map.of(res, ops)).all().get(left(), TimeUnit.MILLISECONDS);
        emit(ev("group_config").put("ok", true));
      } catch (Exception e) {
        emit(ev("group_config").put("ok", false).put("error", chain(e)));
      }
    }
  }

  void createTopic() throws Exception {
    try (Admin ad = Admin.create(common())) {
      NewTopic nt = new NewTopic(arg("topic"), num("partitions", 1), (short) 1);
      if (a.containsKey("configs")) {  // configs=k=v;k=v
        Map<String, String> cfg = new HashMap<>();
        for (String kv : a.get("configs").split(";")) cfg.put(kv.substring(0, kv.indexOf('=')), kv.substring(kv.indexOf('=') + 1));
        nt.configs(cfg);
      }
      ad.createTopics(List.of(nt)).all().get(left(), TimeUnit.MILLISECONDS);
      emit(ev("created").put("topic", arg("topic")));
    }
  }

  Properties producerProps() {
    Properties p = common();
    p.put("key.serializer", StringSerializer.class.getName());
    p.put("value.serializer", StringSerializer.class.getName());
    p.put("acks", "all");
    p.put("linger.ms", "5");
    return p;
  }

  /** count records, value PREFIX+i, key i, to partition i % partitions. */
  void produce() throws Exception {
    int n = num("count", 10), parts = num("partitions", 1), first = num("first", 0);
    String prefix = a.getOrDefault("prefix", "v");
    ObjectNode o = ev("produced");
    try (KafkaProducer<String, String> pr = new KafkaProducer<>(producerProps())) {
      List<java.util.concurrent.Future<RecordMetadata>> fs = new ArrayList<>();
      for (int i = first; i < first + n; i++)
        fs.add(pr.send(new ProducerRecord<>(arg("topic"), i % parts, String.valueOf(i), prefix + i)));
      pr.flush();
      ArrayNode offs = o.putArray("records");
      for (var f : fs) {
        RecordMetadata md = f.get(left(), TimeUnit.MILLISECONDS);
        offs.add(M.createObjectNode().put("p", md.partition()).put("o", md.offset()));
      }
    }
    emit(o.put("n", n));
  }

  /** plan=commit:5,abort:5,commit:5 on partition 0: values c<i> / a<i>. */
  void txn() throws Exception {
    Properties p = producerProps();
    p.put("transactional.id", "share-txn-" + UUID.randomUUID());
    ObjectNode o = ev("txn");
    ArrayNode steps = o.putArray("steps");
    int i = 0;
    try (KafkaProducer<String, String> pr = new KafkaProducer<>(p)) {
      pr.initTransactions();
      for (String step : arg("plan").split(",")) {
        String[] kv = step.split(":");
        boolean commit = kv[0].equals("commit");
        pr.beginTransaction();
        ArrayNode offs = M.createArrayNode();
        for (int k = 0; k < Integer.parseInt(kv[1]); k++, i++)
          offs.add(pr.send(new ProducerRecord<>(arg("topic"), 0, String.valueOf(i), (commit ? "c" : "a") + i))
                       .get(left(), TimeUnit.MILLISECONDS).offset());
        if (commit) pr.commitTransaction(); else pr.abortTransaction();
        steps.add(M.createObjectNode().put("op", kv[0]).set("offsets", offs));
      }
    }
    emit(o);
  }

  /** Reads topic from offset 0 of every partition (a plain consumer, no
   *  group) until `count` records or timeout_ms: records with headers. */
  void read() throws Exception {
    Properties p = common();
    p.put("key.deserializer", StringDeserializer.class.getName());
    p.put("value.deserializer", StringDeserializer.class.getName());
    p.put("enable.auto.commit", "false");
    int want = num("count", 1);
    ObjectNode o = ev("read");
    ArrayNode recs = o.putArray("records");
    try (KafkaConsumer<String, String> c = new KafkaConsumer<>(p)) {
      List<org.apache.kafka.common.TopicPartition> tps = new ArrayList<>();
      for (var pi : c.partitionsFor(arg("topic"), Duration.ofMillis(left())))
        tps.add(new org.apache.kafka.common.TopicPartition(pi.topic(), pi.partition()));
      c.assign(tps);
      c.seekToBeginning(tps);
      while (recs.size() < want && left() > 0) {
        for (ConsumerRecord<String, String> r : c.poll(Duration.ofMillis(Math.min(500, Math.max(1, left()))))) {
          ObjectNode h = M.createObjectNode();
          for (var hd : r.headers()) h.put(hd.key(), hd.value() == null ? null : new String(hd.value()));
          recs.add(M.createObjectNode().put("p", r.partition()).put("o", r.offset()).put("k", r.key())
                       .put("v", r.value()).set("h", h));
        }
      }
    }
    emit(o);
  }

  public static void main(String[] args) throws Exception {
    if (args.length < 1) {
      System.err.println("usage: ShareDriver consume|group-config|create-topic|produce|txn|read key=value...");
      System.exit(2);
    }
    int rc = 0;
    try {
      ShareDriver d = new ShareDriver(args);
      switch (args[0]) {
        case "consume" -> d.consume();
        case "group-config" -> d.groupConfig();
        case "create-topic" -> d.createTopic();
        case "produce" -> d.produce();
        case "txn" -> d.txn();
        case "read" -> d.read();
        default -> throw new IllegalArgumentException("unknown op " + args[0]);
      }
    } catch (Exception e) {
      e.printStackTrace();
      emit(ev("error").put("error", chain(e)));
      rc = 1;
    }
    System.exit(rc);  // do not wait for client threads
  }
}
