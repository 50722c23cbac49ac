// Kafka Streams 4.4 word count for java_streams/ (streams groups, KIP-1071,
// and the classic protocol beside it) and bench/streams_groups.py.
//
// Usage: StreamsGroupsApp run key=value...
//   bootstrap, app_id, input, output, state_dir (required);
//   protocol=streams|classic (group.protocol; default streams),
//   guarantee=at_least_once|exactly_once_v2 (default at_least_once),
//   standbys=N (num.standby.replicas, default 0), app_server=host:port
//   (application.server; default none), threads=N (default 1),
//   sleep_ms=N (work per count update, default 0), report_ms=N (how often
//   the assignment and the metadata are sampled, default 250).
// The topology: lines of words -> flatMap words -> groupBy(word) (a
// repartition topic) -> count into the store "counts" (a changelog) ->
// output word -> count (decimal string). Record caches are off, so every
// input word gives one count update.
// Prints one JSON line per event on stdout (flushed at once), each with
// "t" (epoch ms):
//   {"ev":"state","state":S,"old":S}            on each KafkaStreams state change
//   {"ev":"assignment","active":[...],"standby":[...]}  tasks ("0_1") when they change
//   {"ev":"metadata","hosts":{"h:p":{"active":[tp...],"standby":[tp...]}},
//    "store":["h:p"...]}  metadataForAllStreamsClients and
//                        streamsMetadataForStore("counts"), when they change
//   {"ev":"first","ms":N}        the first count update, N ms after start
//   {"ev":"progress","updates":N} every 100 count updates
//   {"ev":"error","error":"Class: message"}  a stream thread died (replaced)
//   {"ev":"closed"}               after SIGTERM: closed, leaving the group
// Runs until SIGTERM (closes, leaving the group) or SIGKILL.
//
// Usage: StreamsGroupsApp describe bootstrap=B group=G
//   Admin.describeStreamsGroups: one JSON line {"group","state","epoch",
//   "topology_epoch","members":[{"member_id","process_id","endpoint",
//   "active":[...],"standby":[...]}]} or {"error":"Class: message"}.
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.StreamsGroupDescription;
import org.apache.kafka.clients.admin.StreamsGroupMemberAssignment;
import org.apache.kafka.clients.admin.StreamsGroupMemberDescription;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.CloseOptions;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.StreamsMetadata;
import org.apache.kafka.streams.TaskMetadata;
import org.apache.kafka.streams.ThreadMetadata;
import org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler.StreamThreadExceptionResponse;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Grouped;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.Produced;

public class StreamsGroupsApp {
  static final String STORE = "counts";

  static synchronized void say(String json) {
    System.out.println("{\"t\":" + System.currentTimeMillis() + "," + json.substring(1));
    System.out.flush();
  }

  static String q(String s) {
    StringBuilder b = new StringBuilder("\"");
    for (char c : s.toCharArray()) {
      if (c == '"' || c == '\\') b.append('\\').append(c);
      else if (c < 0x20) b.append(String.format("\\u%04x", (int) c));
      else b.append(c);
    }
    return b.append('"').toString();
  }

  static String arr(Collection<String> xs) {
    List<String> out = new ArrayList<>();
    for (String x : new TreeSet<>(xs)) out.add(q(x));
    return "[" + String.join(",", out) + "]";
  }

  static String cause(Throwable e) {
    List<String> parts = new ArrayList<>();
    for (Throwable c = e; c != null && parts.size() < 4; c = c.getCause()) {
      parts.add(c.getClass().getSimpleName() + ": " + c.getMessage());
    }
    return String.join(" <- ", parts);
  }

  static Map<String, String> parse(String[] args) {
    Map<String, String> m = new HashMap<>();
    for (int i = 1; i < args.length; i++) {
      int eq = args[i].indexOf('=');
      if (eq < 0) throw new IllegalArgumentException("expected key=value, got " + args[i]);
      m.put(args[i].substring(0, eq), args[i].substring(eq + 1));
    }
    return m;
  }

  static String need(Map<String, String> a, String k) {
    String v = a.get(k);
    if (v == null) throw new IllegalArgumentException("missing " + k + "=");
    return v;
  }

  public static void main(String[] args) throws Exception {
    if (args.length < 1 || !(args[0].equals("run") || args[0].equals("describe"))) {
      System.err.println("usage: StreamsGroupsApp run|describe key=value... (see the source's header)");
      System.exit(2);
    }
    Map<String, String> a = parse(args);
    if (args[0].equals("describe")) {
      describe(need(a, "bootstrap"), need(a, "group"));
      return;
    }
    run(a);
  }

  static Properties config(Map<String, String> a) {
    Properties p = new Properties();
    p.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, need(a, "bootstrap"));
    p.put(StreamsConfig.APPLICATION_ID_CONFIG, need(a, "app_id"));
    p.put(StreamsConfig.STATE_DIR_CONFIG, need(a, "state_dir"));
    p.put(StreamsConfig.GROUP_PROTOCOL_CONFIG, a.getOrDefault("protocol", "streams"));
    p.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, a.getOrDefault("guarantee", "at_least_once"));
    p.put(StreamsConfig.NUM_STANDBY_REPLICAS_CONFIG, a.getOrDefault("standbys", "0"));
    p.put(StreamsConfig.NUM_STREAM_THREADS_CONFIG, a.getOrDefault("threads", "1"));
    if (a.containsKey("app_server")) p.put(StreamsConfig.APPLICATION_SERVER_CONFIG, a.get("app_server"));
    p.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, "200");
    p.put(StreamsConfig.STATESTORE_CACHE_MAX_BYTES_CONFIG, "0");
    p.put(StreamsConfig.REPLICATION_FACTOR_CONFIG, "1");
    p.put(StreamsConfig.DEFAULT_KEY_SERDE_CLASS_CONFIG, Serdes.StringSerde.class.getName());
    p.put(StreamsConfig.DEFAULT_VALUE_SERDE_CLASS_CONFIG, Serdes.StringSerde.class.getName());
    if (!"streams".equals(a.getOrDefault("protocol", "streams"))) {
      // Classic: a killed member's tasks move after its session timeout
      // (the broker's minimum is 6 s by default). Streams groups take the
      // session timeout from the group's config on the broker instead.
      p.put(StreamsConfig.consumerPrefix("session.timeout.ms"), "6000");
      p.put(StreamsConfig.consumerPrefix("heartbeat.interval.ms"), "1000");
    }
    p.put(StreamsConfig.producerPrefix("transaction.timeout.ms"), "10000");
    return p;
  }

  static void run(Map<String, String> a) throws InterruptedException {
    long start = System.currentTimeMillis();
    long sleepMs = Long.parseLong(a.getOrDefault("sleep_ms", "0"));
    AtomicLong updates = new AtomicLong();
    StreamsBuilder b = new StreamsBuilder();
    b.stream(need(a, "input"), Consumed.with(Serdes.String(), Serdes.String()))
        .flatMapValues(v -> Arrays.asList(v.toLowerCase(Locale.ROOT).split(" +")))
        .filter((k, w) -> !w.isEmpty())
        .groupBy((k, w) -> w, Grouped.with("words", Serdes.String(), Serdes.String()))
        .count(Materialized.as(STORE))
        .toStream()
        .peek((w, c) -> {
          long n = updates.incrementAndGet();
          if (n == 1) say("{\"ev\":\"first\",\"ms\":" + (System.currentTimeMillis() - start) + "}");
          if (n % 100 == 0) say("{\"ev\":\"progress\",\"updates\":" + n + "}");
          if (sleepMs > 0) {
            try {
              Thread.sleep(sleepMs);
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
          }
        })
        .mapValues(Object::toString)
        .to(need(a, "output"), Produced.with(Serdes.String(), Serdes.String()));

    KafkaStreams streams = new KafkaStreams(b.build(), config(a));
    streams.setStateListener((now, before) ->
        say("{\"ev\":\"state\",\"state\":" + q(now.toString()) + ",\"old\":" + q(before.toString()) + "}"));
    // A dead thread (e.g. MissingSourceTopicException while the input topic
    // does not exist) is reported and replaced, so the app recovers by
    // itself once the topic is there.
    streams.setUncaughtExceptionHandler(e -> {
      say("{\"ev\":\"error\",\"error\":" + q(cause(e)) + "}");
      return StreamThreadExceptionResponse.REPLACE_THREAD;
    });
    Thread closer = new Thread(() -> {
      streams.close(CloseOptions.groupMembershipOperation(CloseOptions.GroupMembershipOperation.LEAVE_GROUP)
          .withTimeout(Duration.ofSeconds(20)));
      say("{\"ev\":\"closed\"}");
    });
    Runtime.getRuntime().addShutdownHook(closer);
    streams.start();
    report(streams, Long.parseLong(a.getOrDefault("report_ms", "250")));
  }

  /** Samples the local assignment and the interactive-query metadata; prints changes. */
  static void report(KafkaStreams streams, long everyMs) throws InterruptedException {
    String lastTasks = "";
    String lastMeta = "";
    while (true) {
      Thread.sleep(everyMs);
      KafkaStreams.State s = streams.state();
      if (s == KafkaStreams.State.PENDING_SHUTDOWN || s == KafkaStreams.State.NOT_RUNNING) continue;
      try {
        String tasks = tasksJson(streams.metadataForLocalThreads());
        if (!tasks.equals(lastTasks)) say("{\"ev\":\"assignment\"," + tasks + "}");
        lastTasks = tasks;
        String meta = metadataJson(streams);
        if (!meta.equals(lastMeta)) say("{\"ev\":\"metadata\"," + meta + "}");
        lastMeta = meta;
      } catch (RuntimeException e) {
        // e.g. StreamsNotStartedException or a state change under our feet: sample again.
      }
    }
  }

  static String tasksJson(Collection<ThreadMetadata> threads) {
    List<String> active = new ArrayList<>();
    List<String> standby = new ArrayList<>();
    for (ThreadMetadata t : threads) {
      for (TaskMetadata m : t.activeTasks()) active.add(m.taskId().toString());
      for (TaskMetadata m : t.standbyTasks()) standby.add(m.taskId().toString());
    }
    return "\"active\":" + arr(active) + ",\"standby\":" + arr(standby);
  }

  static List<String> tps(Collection<TopicPartition> xs) {
    List<String> out = new ArrayList<>();
    for (TopicPartition tp : xs) out.add(tp.topic() + "-" + tp.partition());
    return out;
  }

  static String metadataJson(KafkaStreams streams) {
    Map<String, String> hosts = new TreeMap<>();
    for (StreamsMetadata m : streams.metadataForAllStreamsClients()) {
      hosts.put(m.host() + ":" + m.port(), "{\"active\":" + arr(tps(m.topicPartitions())) + ",\"standby\":"
          + arr(tps(m.standbyTopicPartitions())) + "}");
    }
    List<String> store = new ArrayList<>();
    for (StreamsMetadata m : streams.streamsMetadataForStore(STORE)) store.add(m.host() + ":" + m.port());
    List<String> hs = new ArrayList<>();
    hosts.forEach((h, v) -> hs.add(q(h) + ":" + v));
    return "\"hosts\":{" + String.join(",", hs) + "},\"store\":" + arr(store);
  }

  static String taskIds(List<StreamsGroupMemberAssignment.TaskIds> ts) {
    List<String> out = new ArrayList<>();
    for (StreamsGroupMemberAssignment.TaskIds t : ts) {
      for (int p : t.partitions()) out.add(t.subtopologyId() + "_" + p);
    }
    return arr(out);
  }

  static void describe(String bootstrap, String group) {
    Properties p = new Properties();
    p.put("bootstrap.servers", bootstrap);
    try (Admin admin = Admin.create(p)) {
      StreamsGroupDescription d = admin.describeStreamsGroups(List.of(group)).all().get().get(group);
      List<String> members = new ArrayList<>();
      for (StreamsGroupMemberDescription m : d.members()) {
        String ep = m.userEndpoint().map(e -> q(e.host() + ":" + e.port())).orElse("null");
        members.add("{\"member_id\":" + q(m.memberId()) + ",\"process_id\":" + q(m.processId()) + ",\"endpoint\":"
            + ep + ",\"member_epoch\":" + m.memberEpoch() + ",\"active\":" + taskIds(m.assignment().activeTasks())
            + ",\"standby\":" + taskIds(m.assignment().standbyTasks()) + "}");
      }
      List<String> subs = new ArrayList<>();
      d.subtopologies().forEach(s -> subs.add(q(s.subtopologyId())));
      say("{\"group\":" + q(d.groupId()) + ",\"state\":" + q(d.groupState().toString()) + ",\"epoch\":"
          + d.groupEpoch() + ",\"topology_epoch\":" + d.topologyEpoch() + ",\"subtopologies\":[" + String.join(",", subs)
          + "],\"members\":[" + String.join(",", members) + "]}");
    } catch (Exception e) {
      say("{\"error\":" + q(cause(e)) + "}");
    }
  }
}
