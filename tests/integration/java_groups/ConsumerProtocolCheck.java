// KIP-848 against a broker: two Java KafkaConsumers with
// group.protocol=consumer share a topic's partitions, consume and commit; one
// leaves and the other takes over its partitions. Ownership is tracked from
// the consumers' own rebalance callbacks: no partition is ever owned by both.
// Prints one JSON line of what it saw; exits non-zero on a failed check.
// Every wait is bounded (args: bootstrap topic group timeout_ms).
import java.time.Duration;
import java.util.*;
import org.apache.kafka.clients.admin.*;
import org.apache.kafka.clients.consumer.*;
import org.apache.kafka.clients.producer.*;
import org.apache.kafka.common.*;
import org.apache.kafka.common.serialization.*;

public class ConsumerProtocolCheck {
  static final Map<TopicPartition, String> owner = new HashMap<>();
  static final List<String> problems = new ArrayList<>();

  static KafkaConsumer<String, String> consumer(String bootstrap, String group, String name) {
    Properties p = new Properties();
    p.put("bootstrap.servers", bootstrap);
    p.put("group.id", group);
    p.put("group.protocol", "consumer");
    p.put("client.id", name);
    p.put("enable.auto.commit", "false");
    p.put("auto.offset.reset", "earliest");
    p.put("key.deserializer", StringDeserializer.class.getName());
    p.put("value.deserializer", StringDeserializer.class.getName());
    return new KafkaConsumer<>(p);
  }

  static ConsumerRebalanceListener listener(String name) {
    return new ConsumerRebalanceListener() {
      public void onPartitionsRevoked(Collection<TopicPartition> ps) {
        synchronized (owner) { for (TopicPartition tp : ps) owner.remove(tp, name); }
      }
      public void onPartitionsLost(Collection<TopicPartition> ps) { onPartitionsRevoked(ps); }
      public void onPartitionsAssigned(Collection<TopicPartition> ps) {
        synchronized (owner) {
          for (TopicPartition tp : ps) {
            String prev = owner.putIfAbsent(tp, name);
            if (prev != null && !prev.equals(name)) problems.add(tp + " given to " + name + " while " + prev + " owns it");
          }
        }
      }
    };
  }

  static void produce(String bootstrap, String topic, int partitions, int perPartition, String tag) throws Exception {
    Properties p = new Properties();
    p.put("bootstrap.servers", bootstrap);
    p.put("key.serializer", StringSerializer.class.getName());
    p.put("value.serializer", StringSerializer.class.getName());
    try (KafkaProducer<String, String> prod = new KafkaProducer<>(p)) {
      for (int part = 0; part < partitions; part++)
        for (int i = 0; i < perPartition; i++) prod.send(new ProducerRecord<>(topic, part, null, tag + "-" + part + "-" + i)).get();
    }
  }

  interface Cond { boolean ok(); }

  // Polls every consumer until cond holds; false on timeout.
  static boolean pollUntil(List<KafkaConsumer<String, String>> cs, Map<String, Set<String>> seen, long deadline, Cond cond) {
    while (System.currentTimeMillis() < deadline) {
      for (KafkaConsumer<String, String> c : cs) {
        for (ConsumerRecord<String, String> r : c.poll(Duration.ofMillis(100)))
          seen.computeIfAbsent(c.groupMetadata().memberId(), k -> new TreeSet<>()).add(r.value());
      }
      if (cond.ok()) return true;
    }
    return false;
  }

  static int total(Map<String, Set<String>> seen) {
    Set<String> all = new HashSet<>();
    seen.values().forEach(all::addAll);
    return all.size();
  }

  public static void main(String[] args) throws Exception {
    String bootstrap = args[0], topic = args[1], group = args[2];
    long deadline = System.currentTimeMillis() + Long.parseLong(args[3]);
    final int parts = 4;
    Map<String, Object> out = new LinkedHashMap<>();
    try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap))) {
      admin.createTopics(List.of(new NewTopic(topic, parts, (short) 1))).all().get();
      produce(bootstrap, topic, parts, 10, "a");
      Map<String, Set<String>> seen = new HashMap<>();
      KafkaConsumer<String, String> a = consumer(bootstrap, group, "a");
      a.subscribe(List.of(topic), listener("a"));
      boolean aAll = pollUntil(List.of(a), seen, deadline, () -> total(seen) == 40 && a.assignment().size() == parts);
      out.put("a_alone_consumed_all", aAll);
      a.commitSync();
      KafkaConsumer<String, String> b = consumer(bootstrap, group, "b");
      b.subscribe(List.of(topic), listener("b"));
      boolean split = pollUntil(List.of(a, b), seen, deadline,
          () -> a.assignment().size() == 2 && b.assignment().size() == 2);
      out.put("split", split);
      out.put("a_assignment", a.assignment().toString());
      out.put("b_assignment", b.assignment().toString());
      produce(bootstrap, topic, parts, 10, "b");
      boolean more = pollUntil(List.of(a, b), seen, deadline, () -> total(seen) == 80);
      out.put("consumed_after_split", total(seen));
      a.commitSync();
      b.commitSync();
      a.close(Duration.ofSeconds(10));
      boolean takeover = pollUntil(List.of(b), seen, deadline, () -> b.assignment().size() == parts);
      out.put("b_took_over", takeover);
      produce(bootstrap, topic, parts, 5, "c");
      boolean last = pollUntil(List.of(b), seen, deadline, () -> total(seen) == 100);
      out.put("consumed_total", total(seen));
      b.commitSync();
      Map<TopicPartition, OffsetAndMetadata> committed =
          admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get();
      long sum = committed.values().stream().mapToLong(OffsetAndMetadata::offset).sum();
      out.put("committed_sum", sum);
      ConsumerGroupDescription d = admin.describeConsumerGroups(List.of(group)).all().get().get(group);
      out.put("described_type", String.valueOf(d.type()));
      out.put("described_state", String.valueOf(d.groupState()));
      out.put("described_members", d.members().size());
      b.close(Duration.ofSeconds(10));
      out.put("ok", aAll && split && more && takeover && last && problems.isEmpty() && sum == 100);
    }
    out.put("problems", problems);
    StringBuilder sb = new StringBuilder("{");
    for (Map.Entry<String, Object> e : out.entrySet()) {
      if (sb.length() > 1) sb.append(", ");
      Object v = e.getValue();
      String val = (v instanceof Boolean || v instanceof Number) ? v.toString() : "\"" + v.toString().replace("\"", "'") + "\"";
      sb.append('"').append(e.getKey()).append("\": ").append(val);
    }
    System.out.println(sb.append("}"));
    System.exit(Boolean.TRUE.equals(out.get("ok")) ? 0 : 1);
  }
}
