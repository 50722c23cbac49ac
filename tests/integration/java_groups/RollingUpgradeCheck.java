// KIP-848's online upgrade against a broker: a running group of two Java
// KafkaConsumers with group.protocol=classic is rolled, one member at a
// time, to group.protocol=consumer while a producer keeps writing. Each
// consumer polls on its own thread and commits after each batch; at every
// moment at least one member consumes. Ownership is tracked from the
// consumers' own rebalance callbacks: no partition may be owned by two
// members at once. The group must then be a consumer-protocol group of two
// members; it is rolled back to classic the same way (online downgrade). At
// the end every acknowledged record must have been consumed (duplicates are
// allowed: at-least-once) and the group be a classic group of two.
// Prints one JSON line of what it saw; exits non-zero on a failed check.
// Every wait is bounded (args: bootstrap topic group timeout_ms).
import java.time.Duration;
import java.util.*;
import java.util.concurrent.*;
import java.util.concurrent.atomic.*;
import org.apache.kafka.clients.admin.*;
import org.apache.kafka.clients.consumer.*;
import org.apache.kafka.clients.producer.*;
import org.apache.kafka.common.*;
import org.apache.kafka.common.serialization.*;

public class RollingUpgradeCheck {
  static final Map<TopicPartition, String> owner = new HashMap<>();
  static final List<String> problems = Collections.synchronizedList(new ArrayList<>());
  static final Set<String> consumed = ConcurrentHashMap.newKeySet();
  static final AtomicLong records = new AtomicLong();  // with duplicates

  // One consumer on its own thread: polls, records what it read, commits.
  static final class Member implements Runnable {
    final String name;
    final KafkaConsumer<String, String> consumer;
    final AtomicBoolean stop = new AtomicBoolean();
    final Thread thread;
    volatile int assigned;

    Member(String bootstrap, String topic, String group, String name, String protocol) {
      this.name = name;
      Properties p = new Properties();
      p.put("bootstrap.servers", bootstrap);
      p.put("group.id", group);
      p.put("group.protocol", protocol);
      p.put("client.id", name);
      p.put("enable.auto.commit", "false");
      p.put("auto.offset.reset", "earliest");
      p.put("key.deserializer", StringDeserializer.class.getName());
      p.put("value.deserializer", StringDeserializer.class.getName());
      if (protocol.equals("classic")) {
        p.put("heartbeat.interval.ms", "500");
        p.put("session.timeout.ms", "10000");
      }
      consumer = new KafkaConsumer<>(p);
      consumer.subscribe(List.of(topic), listener());
      thread = new Thread(this, name);
      thread.start();
    }

    ConsumerRebalanceListener listener() {
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

    public void run() {
      try {
        while (!stop.get()) {
          ConsumerRecords<String, String> rs = consumer.poll(Duration.ofMillis(100));
          for (ConsumerRecord<String, String> r : rs) consumed.add(r.value());
          records.addAndGet(rs.count());
          assigned = consumer.assignment().size();
          if (!rs.isEmpty()) {
            try { consumer.commitSync(Duration.ofSeconds(5)); } catch (RuntimeException e) { /* at-least-once: retried later */ }
          }
        }
        consumer.close(Duration.ofSeconds(10));
      } catch (RuntimeException e) {
        problems.add(name + ": " + e);
      }
    }

    void close() throws InterruptedException {
      stop.set(true);
      thread.join(30000);
      if (thread.isAlive()) problems.add(name + " did not close");
    }
  }

  static boolean waitFor(long deadline, java.util.function.BooleanSupplier cond) throws InterruptedException {
    while (System.currentTimeMillis() < deadline) {
      if (cond.getAsBoolean()) return true;
      Thread.sleep(50);
    }
    return cond.getAsBoolean();
  }

  // Both members own partitions and all four partitions are owned.
  static boolean sharing(Member a, Member b) {
    synchronized (owner) {
      return a.assigned > 0 && b.assigned > 0 && owner.size() == 4;
    }
  }

  public static void main(String[] args) throws Exception {
    String bootstrap = args[0], topic = args[1], group = args[2];
    long deadline = System.currentTimeMillis() + Long.parseLong(args[3]);
    Map<String, Object> out = new LinkedHashMap<>();
    Set<String> produced = ConcurrentHashMap.newKeySet();
    AtomicBoolean producing = new AtomicBoolean(true);
    try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap))) {
      admin.createTopics(List.of(new NewTopic(topic, 4, (short) 1))).all().get();
      Properties pp = new Properties();
      pp.put("bootstrap.servers", bootstrap);
      pp.put("key.serializer", StringSerializer.class.getName());
      pp.put("value.serializer", StringSerializer.class.getName());
      pp.put("linger.ms", "5");
      Thread producer = new Thread(() -> {
        try (KafkaProducer<String, String> prod = new KafkaProducer<>(pp)) {
          for (int i = 0; producing.get(); i++) {
            String v = "r-" + i;
            prod.send(new ProducerRecord<>(topic, i % 4, null, v), (md, e) -> { if (e == null) produced.add(v); });
            if (i % 20 == 19) { prod.flush(); Thread.sleep(20); }
          }
          prod.flush();
        } catch (Exception e) {
          problems.add("producer: " + e);
        }
      });
      producer.start();

      Member a = new Member(bootstrap, topic, group, "a-classic", "classic");
      Member b = new Member(bootstrap, topic, group, "b-classic", "classic");
      out.put("classic_shared", waitFor(deadline, () -> sharing(a, b)));
      ConsumerGroupDescription d0 = admin.describeConsumerGroups(List.of(group)).all().get().get(group);
      out.put("type_before", String.valueOf(d0.type()));

      long t0 = System.currentTimeMillis();
      a.close();
      Member a2 = new Member(bootstrap, topic, group, "a-consumer", "consumer");
      out.put("mixed_shared", waitFor(deadline, () -> sharing(a2, b)));
      out.put("mixed_ms", System.currentTimeMillis() - t0);
      ConsumerGroupDescription d1 = admin.describeConsumerGroups(List.of(group)).all().get().get(group);
      out.put("type_mixed", String.valueOf(d1.type()));
      out.put("members_mixed", d1.members().size());

      long t1 = System.currentTimeMillis();
      b.close();
      Member b2 = new Member(bootstrap, topic, group, "b-consumer", "consumer");
      out.put("consumer_shared", waitFor(deadline, () -> sharing(a2, b2)));
      out.put("consumer_ms", System.currentTimeMillis() - t1);

      ConsumerGroupDescription d2 = admin.describeConsumerGroups(List.of(group)).all().get().get(group);
      out.put("type_after", String.valueOf(d2.type()));
      out.put("members_after", d2.members().size());

      // And back (online downgrade): a classic member joins the consumer
      // group, then the last consumer-protocol member leaves.
      long t2 = System.currentTimeMillis();
      a2.close();
      Member a3 = new Member(bootstrap, topic, group, "a-classic-again", "classic");
      out.put("back_mixed_shared", waitFor(deadline, () -> sharing(a3, b2)));
      b2.close();
      Member b3 = new Member(bootstrap, topic, group, "b-classic-again", "classic");
      out.put("back_classic_shared", waitFor(deadline, () -> sharing(a3, b3)));
      out.put("downgrade_ms", System.currentTimeMillis() - t2);
      ConsumerGroupDescription d3 = admin.describeConsumerGroups(List.of(group)).all().get().get(group);
      out.put("type_end", String.valueOf(d3.type()));
      out.put("members_end", d3.members().size());

      producing.set(false);
      producer.join(30000);
      boolean all = waitFor(deadline, () -> consumed.containsAll(produced));
      out.put("produced", produced.size());
      out.put("consumed", consumed.size());
      out.put("records_read", records.get());
      out.put("all_consumed", all && !produced.isEmpty());
      a3.close();
      b3.close();
      boolean ok = Boolean.TRUE.equals(out.get("classic_shared")) && Boolean.TRUE.equals(out.get("mixed_shared"))
          && Boolean.TRUE.equals(out.get("consumer_shared")) && Boolean.TRUE.equals(out.get("back_mixed_shared"))
          && Boolean.TRUE.equals(out.get("back_classic_shared")) && all && problems.isEmpty()
          && "Consumer".equals(out.get("type_after")) && d2.members().size() == 2
          && "Classic".equals(out.get("type_end")) && d3.members().size() == 2;
      out.put("ok", ok);
    }
    out.put("problems", new ArrayList<>(problems));
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
