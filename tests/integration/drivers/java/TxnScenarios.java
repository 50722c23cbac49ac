// The transactional scenarios of TxnDriver (one static method per op; see
// TxnDriver.java for the contract and ../README.md for each op's fields).
// Each records what its clients saw into d.out; nothing here asserts.
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Duration;
import java.util.*;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.*;
import org.apache.kafka.clients.producer.*;
import org.apache.kafka.common.TopicPartition;

final class TxnScenarios {
  private TxnScenarios() {}

  /** Three transactions on partitions 0 and 1: commit 5 each, abort 4 each,
   *  commit 3 each; then both isolation levels read everything back. */
  static void commitAbort(TxnDriver d) throws Exception {
    String topic = d.req.get("topic").asText();
    List<Integer> parts = List.of(0, 1);
    d.out.put("finalized_transaction_version", d.finalizedTxnVersion());
    try (KafkaProducer<byte[], byte[]> p = d.producer(d.req.get("txn_id").asText())) {
      p.initTransactions();
      d.out.put("tv2", TxnDriver.tv2(p));
      p.beginTransaction();
      d.send(p, topic, parts, "c1", 5);
      p.commitTransaction();
      p.beginTransaction();
      d.send(p, topic, parts, "a2", 4);
      p.abortTransaction();
      p.beginTransaction();
      d.send(p, topic, parts, "c3", 3);
      p.commitTransaction();
    }
    d.out.set("committed", d.read(d.tps(topic, 2), "read_committed", 15000, true));
    d.out.set("uncommitted", d.read(d.tps(topic, 2), "read_uncommitted", 15000, true));
  }

  /** Producer A opens a transaction; B, same transactional.id, initializes
   *  (fencing A, aborting its transaction) and commits; A then tries to
   *  commit and to send. */
  static void fence(TxnDriver d) throws Exception {
    String topic = d.req.get("topic").asText(), id = d.req.get("txn_id").asText();
    KafkaProducer<byte[], byte[]> a = d.producer(id);
    a.initTransactions();
    a.beginTransaction();
    d.send(a, topic, List.of(0), "A", 3);
    try (KafkaProducer<byte[], byte[]> b = d.producer(id)) {
      b.initTransactions();
      b.beginTransaction();
      d.send(b, topic, List.of(0), "B", 3);
      b.commitTransaction();
    }
    // A commits the transaction it thinks is open (EndTxn with its old epoch),
    // then tries to send: a fenced producer can do neither.
    try {
      a.commitTransaction();
      d.out.putNull("a_commit_error");
    } catch (Exception e) {
      d.out.put("a_commit_error", TxnDriver.chain(e));
    }
    try {
      d.send(a, topic, List.of(0), "A2", 1);
      d.out.putNull("a_send_error");
    } catch (Exception e) {
      d.out.put("a_send_error", TxnDriver.chain(e));
    }
    a.close(d.upTo(2000));
    d.out.set("committed", d.read(d.tps(topic, 1), "read_committed", 15000, true));
  }

  static ArrayNode pollFor(TxnDriver d, KafkaConsumer<byte[], byte[]> c, TopicPartition tp, long ms, long untilPos) {
    ArrayNode recs = CompatDriver.M.createArrayNode();
    long until = System.currentTimeMillis() + Math.min(ms, d.left());
    while (System.currentTimeMillis() < until) {
      for (ConsumerRecord<byte[], byte[]> r : c.poll(d.upTo(200))) recs.add(TxnDriver.short_(r));
      if (untilPos >= 0 && c.position(tp, d.upTo(5000)) >= untilPos) break;
    }
    return recs;
  }

  static void phase(TxnDriver d, String name, KafkaConsumer<byte[], byte[]> c, TopicPartition tp, ArrayNode recs) {
    ObjectNode o = d.out.putObject(name);
    o.set("records", recs);
    o.put("position", c.position(tp, d.upTo(5000)));
    o.put("lso", c.endOffsets(List.of(tp), d.upTo(5000)).get(tp));
  }

  /** One live read_committed consumer on partition 0 while a plain producer
   *  writes before, during and after a transaction that is left open for
   *  `open_ms`, then committed; then the same with an abort. */
  static void lso(TxnDriver d) throws Exception {
    String topic = d.req.get("topic").asText(), id = d.req.get("txn_id").asText();
    long openMs = d.req.path("open_ms").asLong(3000);
    TopicPartition tp = new TopicPartition(topic, 0);
    List<Integer> p0 = List.of(0);
    try (KafkaProducer<byte[], byte[]> plain = d.producer(null);
         KafkaProducer<byte[], byte[]> t = d.producer(id);
         KafkaConsumer<byte[], byte[]> c = d.consumer("read_committed", null)) {
      t.initTransactions();
      d.send(plain, topic, p0, "before", 3);
      t.beginTransaction();
      d.send(t, topic, p0, "open", 3);
      d.send(plain, topic, p0, "after", 3);
      c.assign(List.of(tp));
      c.seekToBeginning(List.of(tp));
      phase(d, "while_open", c, tp, pollFor(d, c, tp, openMs, -1));
      d.out.set("while_open_uncommitted", d.read(List.of(tp), "read_uncommitted", 10000, true));
      t.commitTransaction();
      long end = c.endOffsets(List.of(tp), d.upTo(5000)).get(tp);
      phase(d, "after_commit", c, tp, pollFor(d, c, tp, 10000, end));
      t.beginTransaction();
      d.send(t, topic, p0, "doomed", 2);
      d.send(plain, topic, p0, "after2", 2);
      phase(d, "while_open2", c, tp, pollFor(d, c, tp, openMs, -1));
      t.abortTransaction();
      end = c.endOffsets(List.of(tp), d.upTo(5000)).get(tp);
      phase(d, "after_abort", c, tp, pollFor(d, c, tp, 10000, end));
    }
  }

  static List<ConsumerRecord<byte[], byte[]>> pollN(TxnDriver d, KafkaConsumer<byte[], byte[]> c, int n, long settleMs) {
    List<ConsumerRecord<byte[], byte[]>> got = new ArrayList<>();
    long extra = -1;
    while (d.left() > 0 && (extra < 0 || System.currentTimeMillis() < extra)) {
      for (ConsumerRecord<byte[], byte[]> r : c.poll(d.upTo(200))) got.add(r);
      if (got.size() >= n && extra < 0) extra = System.currentTimeMillis() + settleMs;
    }
    return got;
  }

  static Map<TopicPartition, OffsetAndMetadata> next(List<ConsumerRecord<byte[], byte[]>> recs) {
    Map<TopicPartition, OffsetAndMetadata> m = new HashMap<>();
    for (ConsumerRecord<byte[], byte[]> r : recs) {
      m.merge(new TopicPartition(r.topic(), r.partition()), new OffsetAndMetadata(r.offset() + 1),
              (x, y) -> x.offset() >= y.offset() ? x : y);
    }
    return m;
  }

  static ObjectNode groupOffsets(TxnDriver d, Admin admin, String group) throws Exception {
    ObjectNode o = CompatDriver.M.createObjectNode();
    admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get()
        .forEach((tp, om) -> o.put(String.valueOf(tp.partition()), om == null ? -1 : om.offset()));
    return o;
  }

  static void transform(TxnDriver d, KafkaProducer<byte[], byte[]> p, KafkaConsumer<byte[], byte[]> c,
                        String out, List<ConsumerRecord<byte[], byte[]>> batch) throws Exception {
    p.beginTransaction();
    for (ConsumerRecord<byte[], byte[]> r : batch) {
      p.send(new ProducerRecord<>(out, r.partition(), r.key(), ("out-" + new String(r.value())).getBytes()));
    }
    p.sendOffsetsToTransaction(next(batch), c.groupMetadata());
  }

  static ArrayNode values(List<ConsumerRecord<byte[], byte[]>> recs) {
    ArrayNode a = CompatDriver.M.createArrayNode();
    for (ConsumerRecord<byte[], byte[]> r : recs) a.add(TxnDriver.short_(r));
    return a;
  }

  /** Consume-transform-produce: a group member (read_committed) reads `n`
   *  input records, the producer writes them transformed and commits the
   *  member's offsets in the transaction; then `n` more, aborted; a new
   *  member of the group then resumes from what was committed. */
  static void offsets(TxnDriver d) throws Exception {
    String in = d.req.get("topic").asText(), out = d.req.get("out_topic").asText();
    String group = d.req.get("group").asText();
    int n = d.req.path("n").asInt(30);
    try (KafkaProducer<byte[], byte[]> plain = d.producer(null);
         KafkaProducer<byte[], byte[]> p = d.producer(d.req.get("txn_id").asText());
         Admin admin = Admin.create(d.base.common())) {
      d.send(plain, in, List.of(0, 1, 2), "in1", n / 3);
      p.initTransactions();
      try (KafkaConsumer<byte[], byte[]> c = d.consumer("read_committed", group)) {
        c.subscribe(List.of(in));
        List<ConsumerRecord<byte[], byte[]>> b1 = pollN(d, c, n, 500);
        d.out.set("batch1", values(b1));
        transform(d, p, c, out, b1);
        p.commitTransaction();
        d.out.set("committed_after_commit", groupOffsets(d, admin, group));
        d.send(plain, in, List.of(0, 1, 2), "in2", n / 3);
        List<ConsumerRecord<byte[], byte[]>> b2 = pollN(d, c, n, 500);
        d.out.set("batch2", values(b2));
        transform(d, p, c, out, b2);
        p.flush();  // abortTransaction drops unsent records: the scenario checks that sent ones are aborted
        p.abortTransaction();
        d.out.set("committed_after_abort", groupOffsets(d, admin, group));
      }
      try (KafkaConsumer<byte[], byte[]> c2 = d.consumer("read_committed", group)) {
        c2.subscribe(List.of(in));
        d.out.set("resumed", values(pollN(d, c2, n, 1000)));
      }
    }
    d.out.set("output_committed", d.read(d.tps(out, 3), "read_committed", 15000, true));
    d.out.set("output_uncommitted", d.read(d.tps(out, 3), "read_uncommitted", 15000, true));
  }

  /** A producer that dies mid-transaction: 2 plain records, then a
   *  transaction of 3 records left open, then 2 plain records, on partition
   *  0; prints {"open": ...} and waits to be SIGKILLed. */
  static void hang(TxnDriver d) throws Exception {
    String topic = d.req.get("topic").asText();
    List<Integer> p0 = List.of(0);
    KafkaProducer<byte[], byte[]> plain = d.producer(null);
    KafkaProducer<byte[], byte[]> t = d.producer(d.req.get("txn_id").asText());
    t.initTransactions();
    d.send(plain, topic, p0, "before", 2);
    t.beginTransaction();
    d.send(t, topic, p0, "hang", 3);
    d.send(plain, topic, p0, "after", 2);
    System.out.println(CompatDriver.M.writeValueAsString(CompatDriver.M.createObjectNode().put("open", true)));
    System.out.flush();
    Thread.sleep(Math.max(1, d.left()));
    Runtime.getRuntime().halt(3);  // not killed in time: exit without ending the transaction
  }
  static void event(String ev, int n, String error) throws Exception {
    ObjectNode o = CompatDriver.M.createObjectNode().put("ev", ev).put("n", n);
    if (error != null) o.put("produce_error", error);
    System.out.println(CompatDriver.M.writeValueAsString(o));
    System.out.flush();
  }

  /** Back to the group's committed offsets after an abort (the start where none). */
  static void rewind(KafkaConsumer<byte[], byte[]> c, TxnDriver d) {
    Set<TopicPartition> mine = c.assignment();
    Map<TopicPartition, OffsetAndMetadata> committed = c.committed(mine, d.upTo(10000));
    for (TopicPartition tp : mine) {
      OffsetAndMetadata om = committed.get(tp);
      if (om == null) c.seekToBeginning(List.of(tp));
      else c.seek(tp, om);
    }
  }

  /** One consume-transform-produce member of `group` (issue 55): a
   *  read_committed consumer (`protocol` "consumer": KIP-848, else classic)
   *  and a transactional producer copying each input value as "out:"+value,
   *  one transaction per poll with sendOffsetsToTransaction, until SIGTERM
   *  (the transaction under way ends, then the member leaves the group) or
   *  timeout_ms. Prints {"ev": "committed"|"aborted", "n"} per transaction; a
   *  transaction that fails is aborted and the member rewinds to the
   *  committed offsets; an error the abort cannot recover from (a fenced
   *  producer) ends the op with {"error": ...}. */
  static void member(TxnDriver d) throws Exception {
    String in = d.req.get("topic").asText(), out = d.req.get("out_topic").asText();
    String group = d.req.get("group").asText();
    int delayMs = d.req.path("delay_ms").asInt(100), maxPoll = d.req.path("batch").asInt(10);
    AtomicBoolean stop = new AtomicBoolean();
    Thread main = Thread.currentThread();
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      stop.set(true);
      try {
        main.join(20000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }));
    Properties cp = d.base.common();
    cp.put("key.deserializer", org.apache.kafka.common.serialization.ByteArrayDeserializer.class.getName());
    cp.put("value.deserializer", org.apache.kafka.common.serialization.ByteArrayDeserializer.class.getName());
    cp.put("enable.auto.commit", "false");
    cp.put("auto.offset.reset", "earliest");
    cp.put("isolation.level", "read_committed");
    cp.put("fetch.max.wait.ms", "200");
    cp.put("max.poll.records", String.valueOf(maxPoll));
    cp.put("group.id", group);
    if ("consumer".equals(d.req.path("protocol").asText())) {
      cp.put("group.protocol", "consumer");
    } else {
      cp.put("session.timeout.ms", "6000");
      cp.put("heartbeat.interval.ms", "500");
    }
    int committed = 0, aborted = 0, records = 0;
    try (KafkaProducer<byte[], byte[]> p = d.producer(d.req.get("txn_id").asText());
         KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(cp)) {
      p.initTransactions();
      c.subscribe(List.of(in));
      while (!stop.get() && d.left() > 0) {
        List<ConsumerRecord<byte[], byte[]>> batch = new ArrayList<>();
        for (ConsumerRecord<byte[], byte[]> r : c.poll(d.upTo(300))) batch.add(r);
        if (batch.isEmpty()) continue;
        p.beginTransaction();
        try {
          for (ConsumerRecord<byte[], byte[]> r : batch) {
            p.send(new ProducerRecord<>(out, r.key(), ("out:" + new String(r.value())).getBytes()));
          }
          p.sendOffsetsToTransaction(next(batch), c.groupMetadata());
          Thread.sleep(delayMs);
          p.commitTransaction();
          committed++;
          records += batch.size();
          event("committed", batch.size(), null);
        } catch (org.apache.kafka.common.KafkaException e) {
          p.abortTransaction();  // throws what no abort recovers from
          rewind(c, d);
          aborted++;
          event("aborted", batch.size(), TxnDriver.chain(e));
        }
      }
    }
    d.out.put("committed", committed).put("aborted", aborted).put("records", records);
  }
}
