// The cost of group membership with the real Java client, for
// bench/groups.py (not a test). Launched from source on Kafka's jars.
//   first: a new consumer subscribes to a topic that already holds records;
//          the time from subscribe() (its first heartbeat or JoinGroup goes
//          out with the first poll) to the first record it returns. Median
//          over `reps` fresh groups.
//   leave: ten consumers (a thread each) share twenty partitions; once every
//          partition is owned, one closes (leaves the group); the time until
//          the nine others own all twenty again, from their own rebalance
//          callbacks. Median over `reps` fresh groups.
// Args: bootstrap classic|consumer first|leave reps timeout_ms
// Prints one JSON line: {"mode", "protocol", "ms": [each rep], "median_ms"}.
import java.time.Duration;
import java.util.*;
import java.util.concurrent.*;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.admin.*;
import org.apache.kafka.clients.consumer.*;
import org.apache.kafka.clients.producer.*;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.*;

public class GroupRebalanceBench {
  static String bootstrap, protocol;
  static long deadline;

  static KafkaConsumer<String, String> consumer(String group) {
    Properties p = new Properties();
    p.put("bootstrap.servers", bootstrap);
    p.put("group.id", group);
    p.put("group.protocol", protocol);
    p.put("enable.auto.commit", "false");
    p.put("auto.offset.reset", "earliest");
    p.put("key.deserializer", StringDeserializer.class.getName());
    p.put("value.deserializer", StringDeserializer.class.getName());
    return new KafkaConsumer<>(p);
  }

  static void topic(String name, int partitions, boolean fill) throws Exception {
    try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap))) {
      admin.createTopics(List.of(new NewTopic(name, partitions, (short) 1))).all().get();
    }
    if (!fill) return;
    Properties p = new Properties();
    p.put("bootstrap.servers", bootstrap);
    p.put("key.serializer", StringSerializer.class.getName());
    p.put("value.serializer", StringSerializer.class.getName());
    try (KafkaProducer<String, String> prod = new KafkaProducer<>(p)) {
      for (int part = 0; part < partitions; part++) prod.send(new ProducerRecord<>(name, part, null, "r")).get();
    }
  }

  static long firstRecord(String topic, String group) {
    try (KafkaConsumer<String, String> c = consumer(group)) {
      long t0 = System.nanoTime();
      c.subscribe(List.of(topic));
      while (System.currentTimeMillis() < deadline)
        if (!c.poll(Duration.ofMillis(10)).isEmpty()) return (System.nanoTime() - t0) / 1_000_000;
    }
    throw new IllegalStateException("no record before the deadline");
  }

  // Ten members in their own threads; `owned` is kept from their callbacks.
  static long leave(String topic, String group, int members, int partitions) throws Exception {
    Map<Integer, Set<Integer>> owned = new ConcurrentHashMap<>();
    List<AtomicBoolean> stop = new ArrayList<>();
    ExecutorService pool = Executors.newFixedThreadPool(members);
    List<Future<?>> done = new ArrayList<>();
    for (int m = 0; m < members; m++) {
      final int id = m;
      AtomicBoolean s = new AtomicBoolean();
      stop.add(s);
      owned.put(id, ConcurrentHashMap.newKeySet());
      done.add(pool.submit(() -> member(group, topic, id, owned.get(id), s)));
    }
    try {
      // Settled: every member owns its even share (with eager classic
      // rebalances, all partitions are owned several times before that).
      waitFor(() -> total(owned, -1) == partitions
          && owned.values().stream().allMatch(s -> s.size() == partitions / members));
      stop.get(0).set(true);  // member 0 closes: LeaveGroup / a leave heartbeat
      long t0 = System.nanoTime();
      done.get(0).get(30, TimeUnit.SECONDS);
      waitFor(() -> total(owned, 0) == partitions);
      return (System.nanoTime() - t0) / 1_000_000;
    } finally {
      stop.forEach(s -> s.set(true));
      pool.shutdown();
      pool.awaitTermination(60, TimeUnit.SECONDS);
    }
  }

  static void member(String group, String topic, int id, Set<Integer> mine, AtomicBoolean stop) {
    try (KafkaConsumer<String, String> c = consumer(group)) {
      c.subscribe(List.of(topic), new ConsumerRebalanceListener() {
        public void onPartitionsRevoked(Collection<TopicPartition> ps) { ps.forEach(tp -> mine.remove(tp.partition())); }
        public void onPartitionsLost(Collection<TopicPartition> ps) { onPartitionsRevoked(ps); }
        public void onPartitionsAssigned(Collection<TopicPartition> ps) { ps.forEach(tp -> mine.add(tp.partition())); }
      });
      while (!stop.get() && System.currentTimeMillis() < deadline) c.poll(Duration.ofMillis(20));
      mine.clear();  // closing: whatever it owned is released by close()
    }
  }

  // Distinct partitions owned by every member but `except`, when no partition is owned twice.
  static int total(Map<Integer, Set<Integer>> owned, int except) {
    Set<Integer> all = new HashSet<>();
    int n = 0;
    for (Map.Entry<Integer, Set<Integer>> e : owned.entrySet()) {
      if (e.getKey() == except) continue;
      all.addAll(e.getValue());
      n += e.getValue().size();
    }
    return n == all.size() ? all.size() : -1;
  }

  interface Cond { boolean ok(); }

  static void waitFor(Cond c) throws InterruptedException {
    while (!c.ok()) {
      if (System.currentTimeMillis() > deadline) throw new IllegalStateException("deadline");
      Thread.sleep(2);
    }
  }

  public static void main(String[] args) throws Exception {
    bootstrap = args[0];
    protocol = args[1];
    String mode = args[2];
    int reps = Integer.parseInt(args[3]);
    deadline = System.currentTimeMillis() + Long.parseLong(args[4]);
    String tag = protocol + "-" + mode + "-" + Long.toHexString(System.nanoTime());
    List<Long> ms = new ArrayList<>();
    if (mode.equals("first")) {
      topic("first-" + tag, 1, true);
      for (int r = 0; r < reps; r++) ms.add(firstRecord("first-" + tag, "g-" + tag + "-" + r));
    } else {
      topic("leave-" + tag, 20, false);
      for (int r = 0; r < reps; r++) ms.add(leave("leave-" + tag, "g-" + tag + "-" + r, 10, 20));
    }
    List<Long> sorted = new ArrayList<>(ms);
    Collections.sort(sorted);
    System.out.println("{\"mode\": \"" + mode + "\", \"protocol\": \"" + protocol + "\", \"ms\": " + ms
        + ", \"median_ms\": " + sorted.get(sorted.size() / 2) + "}");
  }
}
