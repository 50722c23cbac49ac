// KIP-848's broker-side regular expressions against a broker: a Java
// KafkaConsumer with group.protocol=consumer subscribes with
// subscribe(new SubscriptionPattern(PREFIX + "-.*")), consumes the matching
// topic, and then, without the client doing anything, a topic created later
// that matches is assigned and consumed; a topic that does not match never
// is. Prints one JSON line (what it saw, and the seconds from the later
// topic's creation to its first record); exits non-zero on a failed check.
// Every wait is bounded (args: bootstrap prefix group timeout_ms).
import java.time.Duration;
import java.util.*;
import org.apache.kafka.clients.admin.*;
import org.apache.kafka.clients.consumer.*;
import org.apache.kafka.clients.producer.*;
import org.apache.kafka.common.*;
import org.apache.kafka.common.serialization.*;

public class RegexSubscriptionCheck {
  static void produce(String bootstrap, String topic, int partitions, int perPartition) throws Exception {
    Properties p = new Properties();
    p.put("bootstrap.servers", bootstrap);
    p.put("key.serializer", StringSerializer.class.getName());
    p.put("value.serializer", StringSerializer.class.getName());
    try (KafkaProducer<String, String> prod = new KafkaProducer<>(p)) {
      for (int part = 0; part < partitions; part++)
        for (int i = 0; i < perPartition; i++)
          prod.send(new ProducerRecord<>(topic, part, null, topic + "-" + part + "-" + i)).get();
    }
  }

  public static void main(String[] args) throws Exception {
    String bootstrap = args[0], prefix = args[1], group = args[2];
    long deadline = System.currentTimeMillis() + Long.parseLong(args[3]);
    String first = prefix + "-first", later = prefix + "-later", other = "other-" + prefix;
    Map<String, Object> out = new LinkedHashMap<>();
    Set<String> seen = new HashSet<>();
    Map<String, Integer> perTopic = new TreeMap<>();
    boolean ok = false;
    try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap))) {
      admin.createTopics(List.of(new NewTopic(first, 2, (short) 1), new NewTopic(other, 1, (short) 1))).all().get();
      produce(bootstrap, first, 2, 5);
      produce(bootstrap, other, 1, 5);
      Properties p = new Properties();
      p.put("bootstrap.servers", bootstrap);
      p.put("group.id", group);
      p.put("group.protocol", "consumer");
      p.put("auto.offset.reset", "earliest");
      p.put("key.deserializer", StringDeserializer.class.getName());
      p.put("value.deserializer", StringDeserializer.class.getName());
      try (KafkaConsumer<String, String> c = new KafkaConsumer<>(p)) {
        c.subscribe(new SubscriptionPattern(prefix + "-.*"));
        boolean gotFirst = false;
        while (System.currentTimeMillis() < deadline && !gotFirst) {
          for (ConsumerRecord<String, String> r : c.poll(Duration.ofMillis(200))) {
            seen.add(r.value());
            perTopic.merge(r.topic(), 1, Integer::sum);
          }
          gotFirst = perTopic.getOrDefault(first, 0) == 10;
        }
        out.put("first_consumed", perTopic.getOrDefault(first, 0));
        long created = System.currentTimeMillis();
        admin.createTopics(List.of(new NewTopic(later, 3, (short) 1))).all().get();
        produce(bootstrap, later, 3, 4);
        long firstLater = -1;
        while (System.currentTimeMillis() < deadline && perTopic.getOrDefault(later, 0) < 12) {
          for (ConsumerRecord<String, String> r : c.poll(Duration.ofMillis(200))) {
            seen.add(r.value());
            perTopic.merge(r.topic(), 1, Integer::sum);
            if (r.topic().equals(later) && firstLater < 0) firstLater = System.currentTimeMillis();
          }
        }
        out.put("later_consumed", perTopic.getOrDefault(later, 0));
        out.put("other_consumed", perTopic.getOrDefault(other, 0));
        out.put("later_seconds", firstLater < 0 ? -1 : (firstLater - created) / 1000.0);
        out.put("assignment", new TreeSet<>(c.assignment().stream().map(TopicPartition::toString).toList()).toString());
        ok = gotFirst && perTopic.getOrDefault(later, 0) == 12 && !perTopic.containsKey(other)
            && c.assignment().size() == 5;
      }
    } catch (Exception e) {
      out.put("error", e.toString());
      e.printStackTrace();
    }
    out.put("ok", ok);
    StringBuilder sb = new StringBuilder("{");
    for (Map.Entry<String, Object> e : out.entrySet()) {
      if (sb.length() > 1) sb.append(", ");
      Object v = e.getValue();
      String val = (v instanceof Boolean || v instanceof Number) ? v.toString() : "\"" + v.toString().replace("\"", "'") + "\"";
      sb.append('"').append(e.getKey()).append("\": ").append(val);
    }
    System.out.println(sb.append("}"));
    System.exit(ok ? 0 : 1);
  }
}
