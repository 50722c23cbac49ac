// One long-running KafkaConsumer (group.protocol=consumer) as its own process,
// so that a test can start, stop and kill -9 members one by one. It prints one
// JSON line per event on stdout, each stamped with the wall clock in ms:
//   {"ev":"assigned"|"revoked"|"lost","t":ms,"ps":[partitions]}  (its own callbacks)
//   {"ev":"consumed","t":ms,"p":partition,"o":offset}           (before its commitSync)
//   {"ev":"closed","t":ms}                                       (after close())
// Reading "close" on stdin commits and closes (a static member's close is
// its static leave, epoch -2); the process then exits 0. Bounded: it exits by
// itself after timeout_ms.
// Args: bootstrap topic group client_id instance_id|- timeout_ms
import java.time.Duration;
import java.util.*;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.consumer.*;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;

public class GroupMember {
  static synchronized void emit(String ev, String rest) {
    System.out.println("{\"ev\":\"" + ev + "\",\"t\":" + System.currentTimeMillis() + rest + "}");
    System.out.flush();
  }

  static String partitions(Collection<TopicPartition> ps) {
    StringJoiner j = new StringJoiner(",", ",\"ps\":[", "]");
    for (TopicPartition tp : ps) j.add(Integer.toString(tp.partition()));
    return j.toString();
  }

  public static void main(String[] args) throws Exception {
    String bootstrap = args[0], topic = args[1], group = args[2], clientId = args[3], instance = args[4];
    long deadline = System.currentTimeMillis() + Long.parseLong(args[5]);
    Properties p = new Properties();
    p.put("bootstrap.servers", bootstrap);
    p.put("group.id", group);
    p.put("group.protocol", "consumer");
    p.put("client.id", clientId);
    if (!instance.equals("-")) p.put("group.instance.id", instance);
    p.put("enable.auto.commit", "false");
    p.put("auto.offset.reset", "earliest");
    p.put("key.deserializer", StringDeserializer.class.getName());
    p.put("value.deserializer", StringDeserializer.class.getName());
    AtomicBoolean closing = new AtomicBoolean();
    Thread stdin = new Thread(() -> {
      Scanner in = new Scanner(System.in);
      while (in.hasNextLine()) if (in.nextLine().trim().equals("close")) closing.set(true);
    });
    stdin.setDaemon(true);
    stdin.start();
    try (KafkaConsumer<String, String> c = new KafkaConsumer<>(p)) {
      c.subscribe(List.of(topic), new ConsumerRebalanceListener() {
        public void onPartitionsRevoked(Collection<TopicPartition> ps) { emit("revoked", partitions(ps)); }
        public void onPartitionsLost(Collection<TopicPartition> ps) { emit("lost", partitions(ps)); }
        public void onPartitionsAssigned(Collection<TopicPartition> ps) { emit("assigned", partitions(ps)); }
      });
      while (!closing.get() && System.currentTimeMillis() < deadline) {
        ConsumerRecords<String, String> recs = c.poll(Duration.ofMillis(100));
        if (recs.isEmpty()) continue;
        // At-least-once: reported (processed), then committed. A member killed
        // in between has reported records that the next owner reads again.
        for (ConsumerRecord<String, String> r : recs) emit("consumed", ",\"p\":" + r.partition() + ",\"o\":" + r.offset());
        c.commitSync();
      }
    }  // close(): leaves the group (revoking its partitions), or a static leave
    emit("closed", "");
  }
}
