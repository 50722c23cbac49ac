// The Java client over an SSL listener with PEM key material: produces
// records and reads them back, optionally with a client certificate
// (mutual TLS). Prints one JSON line of what it saw; exits non-zero when a
// check fails. Every wait is bounded.
// args: bootstrap topic ca_pem client_pem_or_- count timeout_ms
import java.nio.file.*;
import java.time.Duration;
import java.util.*;
import org.apache.kafka.clients.consumer.*;
import org.apache.kafka.clients.producer.*;
import org.apache.kafka.common.*;
import org.apache.kafka.common.serialization.*;

public class TlsCheck {
  static Properties ssl(String bootstrap, String ca, String clientPem) throws Exception {
    Properties p = new Properties();
    p.put("bootstrap.servers", bootstrap);
    p.put("security.protocol", "SSL");
    p.put("ssl.truststore.type", "PEM");
    p.put("ssl.truststore.location", ca);
    if (!clientPem.equals("-")) {
      p.put("ssl.keystore.type", "PEM");
      p.put("ssl.keystore.location", clientPem);
    }
    return p;
  }

  public static void main(String[] args) throws Exception {
    String bootstrap = args[0], topic = args[1], ca = args[2], clientPem = args[3];
    int count = Integer.parseInt(args[4]);
    long timeoutMs = Long.parseLong(args[5]);
    Properties pp = ssl(bootstrap, ca, clientPem);
    pp.put("key.serializer", StringSerializer.class.getName());
    pp.put("value.serializer", StringSerializer.class.getName());
    pp.put("max.block.ms", String.valueOf(timeoutMs));
    pp.put("delivery.timeout.ms", String.valueOf(timeoutMs));
    pp.put("request.timeout.ms", String.valueOf(Math.min(timeoutMs / 2, 30000)));
    int produced = 0;
    try (KafkaProducer<String, String> producer = new KafkaProducer<>(pp)) {
      for (int i = 0; i < count; i++) {
        producer.send(new ProducerRecord<>(topic, 0, "k" + i, "v" + i)).get();
        produced++;
      }
    }
    Properties cp = ssl(bootstrap, ca, clientPem);
    cp.put("key.deserializer", StringDeserializer.class.getName());
    cp.put("value.deserializer", StringDeserializer.class.getName());
    List<String> values = new ArrayList<>();
    try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(cp)) {
      TopicPartition tp = new TopicPartition(topic, 0);
      consumer.assign(List.of(tp));
      consumer.seekToBeginning(List.of(tp));
      long deadline = System.currentTimeMillis() + timeoutMs;
      while (values.size() < count && System.currentTimeMillis() < deadline)
        for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(200))) values.add(r.value());
    }
    boolean ok = produced == count && values.size() == count && values.get(count - 1).equals("v" + (count - 1));
    System.out.println("{\"produced\": " + produced + ", \"consumed\": " + values.size() + ", \"ok\": " + ok + "}");
    System.exit(ok ? 0 : 1);
  }
}
