// Share groups (KIP-932) with the real Java client, for bench/share.py (not a
// test). Launched from source on Kafka's jars.
//   setup BOOTSTRAP TOPIC PARTITIONS RECORDS SIZE GROUPS TIMEOUT_MS
//         creates TOPIC, fills it with RECORDS records of SIZE bytes spread
//         round-robin over its partitions (acks=1, batched), and sets
//         share.auto.offset.reset=earliest on each group of GROUPS (commas):
//         Kafka's default, latest, would skip what is already there.
//   consume BOOTSTRAP TOPIC GROUP CONSUMERS RECORDS TIMEOUT_MS
//         CONSUMERS KafkaShareConsumers (a thread each, explicit
//         acknowledgement) read until RECORDS records are acknowledged in
//         all: each poll's records are acknowledged ACCEPT and committed with
//         commitSync (a ShareAcknowledge round trip per partition leader).
//         The acknowledgement round trip is the time from the return of
//         poll() to the return of commitSync() (what a worker that
//         acknowledges before taking more waits for).
// Prints one JSON line: consume: {"records", "first_ms" (start to the first
// record), "seconds" (first record to the last acknowledgement),
// "records_per_s" (over `seconds`), "ack_p50_ms", "ack_p99_ms", "ack_n",
// "ack_errors"}.
import java.time.Duration;
import java.util.*;
import java.util.concurrent.*;
import java.util.concurrent.atomic.*;
import org.apache.kafka.clients.admin.*;
import org.apache.kafka.clients.consumer.*;
import org.apache.kafka.clients.producer.*;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.serialization.*;

public class ShareBench {
  static long deadline;

  static long left() {
    long ms = deadline - System.currentTimeMillis();
    if (ms <= 0) throw new IllegalStateException("deadline passed");
    return ms;
  }

  static void setup(String bootstrap, String topic, int partitions, int records, int size, String groups)
      throws Exception {
    try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap))) {
      admin.createTopics(List.of(new NewTopic(topic, partitions, (short) 1))).all().get(left(), TimeUnit.MILLISECONDS);
      Map<ConfigResource, Collection<AlterConfigOp>> cfg = new HashMap<>();
      for (String g : groups.split(","))
        cfg.put(new ConfigResource(ConfigResource.Type.GROUP, g), List.of(new AlterConfigOp(
            new ConfigEntry("share.auto.offset.reset", "earliest"), AlterConfigOp.OpType.SET)));
      admin.incrementalAlterConfigs(cfg).all().get(left(), TimeUnit.MILLISECONDS);
    }
    Properties p = new Properties();
    p.put("bootstrap.servers", bootstrap);
    p.put("acks", "1");
    p.put("linger.ms", "5");
    p.put("batch.size", "65536");
    p.put("key.serializer", ByteArraySerializer.class.getName());
    p.put("value.serializer", ByteArraySerializer.class.getName());
    byte[] value = new byte[size];
    Arrays.fill(value, (byte) 'x');
    try (KafkaProducer<byte[], byte[]> prod = new KafkaProducer<>(p)) {
      Future<RecordMetadata> last = null;
      for (int i = 0; i < records; i++) last = prod.send(new ProducerRecord<>(topic, i % partitions, null, value));
      prod.flush();
      if (last != null) last.get(left(), TimeUnit.MILLISECONDS);
    }
    System.out.println("{\"produced\": " + records + "}");
  }

  static void consume(String bootstrap, String topic, String group, int consumers, long records) throws Exception {
    AtomicLong acked = new AtomicLong();
    AtomicLong ackErrors = new AtomicLong();
    AtomicLong firstNs = new AtomicLong(Long.MAX_VALUE);
    AtomicLong lastNs = new AtomicLong();
    ConcurrentLinkedQueue<long[]> lat = new ConcurrentLinkedQueue<>();
    long t0 = System.nanoTime();
    ExecutorService pool = Executors.newFixedThreadPool(consumers);
    List<Future<?>> fs = new ArrayList<>();
    for (int i = 0; i < consumers; i++) {
      final int id = i;
      fs.add(pool.submit(() -> {
        Properties p = new Properties();
        p.put("bootstrap.servers", bootstrap);
        p.put("group.id", group);
        p.put("client.id", "sharebench-" + id);
        p.put("share.acknowledgement.mode", "explicit");
        p.put("key.deserializer", ByteArrayDeserializer.class.getName());
        p.put("value.deserializer", ByteArrayDeserializer.class.getName());
        long[] mine = new long[1 << 16];
        int n = 0;
        try (KafkaShareConsumer<byte[], byte[]> c = new KafkaShareConsumer<>(p)) {
          c.subscribe(List.of(topic));
          while (acked.get() < records && System.currentTimeMillis() < deadline) {
            ConsumerRecords<byte[], byte[]> recs = c.poll(Duration.ofMillis(100));
            if (recs.isEmpty()) continue;
            long polled = System.nanoTime();
            firstNs.accumulateAndGet(polled, Math::min);
            for (ConsumerRecord<byte[], byte[]> r : recs) c.acknowledge(r, AcknowledgeType.ACCEPT);
            Map<?, Optional<KafkaException>> res = c.commitSync(Duration.ofMillis(Math.min(30000, left())));
            long done = System.nanoTime();
            for (Optional<KafkaException> e : res.values()) if (e.isPresent()) ackErrors.incrementAndGet();
            if (n == mine.length) mine = Arrays.copyOf(mine, n * 2);
            mine[n++] = done - polled;
            acked.addAndGet(recs.count());
            lastNs.accumulateAndGet(done, Math::max);
          }
          lat.add(Arrays.copyOf(mine, n));
          c.close(Duration.ofMillis(2000));
        }
        return null;
      }));
    }
    pool.shutdown();
    for (Future<?> f : fs) f.get(left() + 10000, TimeUnit.MILLISECONDS);
    long[] all = lat.stream().flatMapToLong(Arrays::stream).sorted().toArray();
    if (acked.get() < records)
      throw new IllegalStateException("acknowledged " + acked.get() + " of " + records + " before the deadline");
    double secs = (lastNs.get() - firstNs.get()) / 1e9;
    System.out.printf(Locale.ROOT,
        "{\"records\": %d, \"first_ms\": %.1f, \"seconds\": %.3f, \"records_per_s\": %.1f, \"ack_p50_ms\": %.3f, "
            + "\"ack_p99_ms\": %.3f, \"ack_n\": %d, \"ack_errors\": %d}%n",
        acked.get(), (firstNs.get() - t0) / 1e6, secs, acked.get() / secs, pct(all, 0.50), pct(all, 0.99), all.length,
        ackErrors.get());
  }

  static double pct(long[] sorted, double q) {
    if (sorted.length == 0) return -1;
    return sorted[Math.min(sorted.length - 1, (int) Math.ceil(q * sorted.length) - 1)] / 1e6;
  }

  public static void main(String[] a) throws Exception {
    if (a[0].equals("setup")) {
      deadline = System.currentTimeMillis() + Long.parseLong(a[7]);
      setup(a[1], a[2], Integer.parseInt(a[3]), Integer.parseInt(a[4]), Integer.parseInt(a[5]), a[6]);
    } else if (a[0].equals("consume")) {
      deadline = System.currentTimeMillis() + Long.parseLong(a[6]);
      consume(a[1], a[2], a[3], Integer.parseInt(a[4]), Long.parseLong(a[5]));
    } else {
      throw new IllegalArgumentException("setup|consume");
    }
    System.exit(0);
  }
}
