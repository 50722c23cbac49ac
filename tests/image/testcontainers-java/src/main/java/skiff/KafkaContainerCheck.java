// Testcontainers Java's KafkaContainer, written for apache/kafka, starting the
// Skiff image unchanged (asCompatibleSubstituteFor): its start script, its
// KAFKA_* variables and its wait for "Transitioning from RECOVERY to
// RUNNING"; then an admin, producer and consumer round trip and a committed
// and an aborted transaction through the bootstrap address it gives (the
// mapped port). Exits 0 only if every step passed; prints one line per step.
//   java -cp ... skiff.KafkaContainerCheck IMAGE
package skiff;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.UUID;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.testcontainers.kafka.KafkaContainer;
import org.testcontainers.utility.DockerImageName;

public final class KafkaContainerCheck {
  private static void check(boolean ok, String what) {
    if (!ok) throw new IllegalStateException("FAILED: " + what);
    System.out.println("ok: " + what);
  }

  private static List<String> consume(String bootstrap, String topic, String isolation, int want) {
    Properties p = new Properties();
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ConsumerConfig.GROUP_ID_CONFIG, "check-" + UUID.randomUUID());
    p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, isolation);
    List<String> got = new ArrayList<>();
    try (KafkaConsumer<String, String> c = new KafkaConsumer<>(p, new StringDeserializer(), new StringDeserializer())) {
      c.subscribe(List.of(topic));
      long deadline = System.currentTimeMillis() + 30_000;
      while (got.size() < want && System.currentTimeMillis() < deadline)
        for (ConsumerRecord<String, String> r : c.poll(Duration.ofMillis(200))) got.add(r.value());
      c.commitSync();
    }
    return got;
  }

  private static void roundTrip(String bootstrap) throws Exception {
    try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
      admin.createTopics(List.of(new NewTopic("tc-plain", 3, (short) 1), new NewTopic("tc-txn", 1, (short) 1)))
          .all().get();
      Set<String> names = admin.listTopics().names().get();
      check(names.contains("tc-plain") && names.contains("tc-txn"), "admin: created and listed 2 topics " + names);
      String cluster = admin.describeCluster().clusterId().get();
      check("4L6g3nShT-eMCtK--X86sw".equals(cluster), "admin: cluster id is KafkaContainer's CLUSTER_ID " + cluster);
    }
    Properties p = new Properties();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ProducerConfig.ACKS_CONFIG, "all");
    try (KafkaProducer<String, String> producer = new KafkaProducer<>(p, new StringSerializer(), new StringSerializer())) {
      for (int i = 0; i < 100; i++) producer.send(new ProducerRecord<>("tc-plain", "k" + i, "v" + i)).get();
    }
    check(consume(bootstrap, "tc-plain", "read_uncommitted", 100).size() == 100, "produced and consumed 100 records");
  }

  private static void transaction(String bootstrap) throws Exception {
    Properties p = new Properties();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, "tc-check");
    try (KafkaProducer<String, String> producer = new KafkaProducer<>(p, new StringSerializer(), new StringSerializer())) {
      producer.initTransactions();
      producer.beginTransaction();
      producer.send(new ProducerRecord<>("tc-txn", "a", "aborted"));
      producer.abortTransaction();
      producer.beginTransaction();
      for (int i = 0; i < 10; i++) producer.send(new ProducerRecord<>("tc-txn", "k" + i, "committed-" + i));
      producer.commitTransaction();
    }
    List<String> got = consume(bootstrap, "tc-txn", "read_committed", 10);
    check(got.size() == 10 && got.stream().allMatch(v -> v.startsWith("committed-")),
        "transaction: read_committed sees the 10 committed records, not the aborted one " + got.size());
  }

  public static void main(String[] args) throws Exception {
    DockerImageName image = DockerImageName.parse(args[0]).asCompatibleSubstituteFor("apache/kafka");
    long started = System.nanoTime();
    try (KafkaContainer kafka = new KafkaContainer(image)) {
      kafka.start();
      System.out.printf("ok: KafkaContainer started %s in %.2f s, bootstrap %s%n", args[0],
          (System.nanoTime() - started) / 1e9, kafka.getBootstrapServers());
      roundTrip(kafka.getBootstrapServers());
      transaction(kafka.getBootstrapServers());
      String logs = kafka.getLogs();
      check(logs.contains("Transitioning from RECOVERY to RUNNING"), "the readiness line is in the container's log");
    }
    System.out.println("passed");
  }
}
