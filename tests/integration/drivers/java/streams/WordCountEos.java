// Kafka Streams 4.4 word count with processing.guarantee=exactly_once_v2, the
// application the java_txn Streams scenario SIGKILLs mid-run and restarts.
// Usage: WordCountEos BOOTSTRAP APPLICATION_ID INPUT OUTPUT STATE_DIR [SLEEP_MS]
// SLEEP_MS (default 0): work per count update, so a test can kill the
// application while it is between commits (of the output).
// Input: lines of space-separated words; output: word -> count (a decimal
// string), one update per input word (record caches off, so every count
// 1..n of a word reaches the output exactly once under exactly-once).
// Prints "STATE <state>" on each state change and "UPDATES <n>" every 100
// count updates (stdout, flushed), so the test can kill it mid-run. Exits 1
// on an uncaught stream-thread error. Runs until killed (the test bounds it).
import java.util.Arrays;
import java.util.Locale;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Grouped;
import org.apache.kafka.streams.kstream.KStream;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.Produced;

public class WordCountEos {
  static synchronized void say(String s) {
    System.out.println(s);
    System.out.flush();
  }

  public static void main(String[] args) {
    if (args.length != 5 && args.length != 6) {
      System.err.println("usage: WordCountEos BOOTSTRAP APPLICATION_ID INPUT OUTPUT STATE_DIR [SLEEP_MS]");
      System.exit(2);
    }
    Properties p = new Properties();
    p.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, args[0]);
    p.put(StreamsConfig.APPLICATION_ID_CONFIG, args[1]);
    p.put(StreamsConfig.STATE_DIR_CONFIG, args[4]);
    p.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
    p.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, "200");
    p.put(StreamsConfig.STATESTORE_CACHE_MAX_BYTES_CONFIG, "0");
    p.put(StreamsConfig.REPLICATION_FACTOR_CONFIG, "1");
    p.put(StreamsConfig.NUM_STREAM_THREADS_CONFIG, "1");
    p.put(StreamsConfig.DEFAULT_KEY_SERDE_CLASS_CONFIG, Serdes.StringSerde.class.getName());
    p.put(StreamsConfig.DEFAULT_VALUE_SERDE_CLASS_CONFIG, Serdes.StringSerde.class.getName());
    // A restarted member replaces the killed one after its session timeout:
    // keep that short (the broker's minimum is 6 s by default).
    p.put(StreamsConfig.consumerPrefix("session.timeout.ms"), "6000");
    p.put(StreamsConfig.consumerPrefix("heartbeat.interval.ms"), "1000");
    p.put(StreamsConfig.producerPrefix("transaction.timeout.ms"), "10000");

    long sleepMs = args.length == 6 ? Long.parseLong(args[5]) : 0;
    AtomicLong updates = new AtomicLong();
    StreamsBuilder b = new StreamsBuilder();
    KStream<String, String> text = b.stream(args[2], Consumed.with(Serdes.String(), Serdes.String()));
    text.flatMapValues(v -> Arrays.asList(v.toLowerCase(Locale.ROOT).split(" +")))
        .filter((k, w) -> !w.isEmpty())
        .groupBy((k, w) -> w, Grouped.with(Serdes.String(), Serdes.String()))
        .count(Materialized.with(Serdes.String(), Serdes.Long()))
        .toStream()
        .peek((w, c) -> {
          long n = updates.incrementAndGet();
          if (n % 100 == 0) say("UPDATES " + n);
          if (sleepMs > 0) {
            try {
              Thread.sleep(sleepMs);
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
          }
        })
        .mapValues(Object::toString)
        .to(args[3], Produced.with(Serdes.String(), Serdes.String()));

    KafkaStreams streams = new KafkaStreams(b.build(), p);
    streams.setStateListener((now, before) -> say("STATE " + now));
    streams.setUncaughtExceptionHandler(e -> {
      e.printStackTrace();
      say("FAILED " + e);
      Runtime.getRuntime().halt(1);
      return StreamsUncaughtExceptionHandler.StreamThreadExceptionResponse.SHUTDOWN_CLIENT;
    });
    streams.start();
  }
}
