// The Java client with the security settings of a properties file (SSL with
// or without a client certificate, SASL_PLAINTEXT or SASL_SSL; PLAIN or
// SCRAM), for test_tls.py and test_sasl.py: produces records and reads
// them back. Prints one JSON line of what it saw, with the exception's class
// when authentication fails; exits non-zero when a check fails. Every wait
// is bounded. With pause_ms > 0 it waits that long between producing and
// consuming on the same producer connection (re-authentication, KIP-368).
// args: bootstrap topic client_properties count timeout_ms [pause_ms]
import java.io.*;
import java.time.Duration;
import java.util.*;
import org.apache.kafka.clients.consumer.*;
import org.apache.kafka.clients.producer.*;
import org.apache.kafka.common.*;
import org.apache.kafka.common.serialization.*;

public class SecureClientCheck {
  static Properties base(String bootstrap, String file) throws IOException {
    Properties p = new Properties();
    try (Reader r = new FileReader(file)) {
      p.load(r);
    }
    p.put("bootstrap.servers", bootstrap);
    return p;
  }

  static void fail(Exception e) {
    Throwable t = e;
    while (t.getCause() != null && !(t instanceof KafkaException)) t = t.getCause();
    System.out.println("{\"ok\": false, \"error\": \"" + t.getClass().getSimpleName() + "\"}");
    System.exit(1);
  }

  public static void main(String[] args) throws Exception {
    String bootstrap = args[0], topic = args[1], file = args[2];
    int count = Integer.parseInt(args[3]);
    long timeoutMs = Long.parseLong(args[4]);
    long pauseMs = args.length > 5 ? Long.parseLong(args[5]) : 0;
    Properties pp = base(bootstrap, file);
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
        if (pauseMs > 0 && i == count / 2) Thread.sleep(pauseMs);
      }
    } catch (Exception e) {
      fail(e);
    }
    Properties cp = base(bootstrap, file);
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
    } catch (Exception e) {
      fail(e);
    }
    boolean ok = produced == count && values.size() == count && values.get(count - 1).equals("v" + (count - 1));
    System.out.println("{\"produced\": " + produced + ", \"consumed\": " + values.size() + ", \"ok\": " + ok + "}");
    System.exit(ok ? 0 : 1);
  }
}
