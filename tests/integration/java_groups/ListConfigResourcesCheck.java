// ListConfigResources (API 74, KIP-1142) through Admin.listConfigResources:
// creates a topic, gives a group that has no members a dynamic config, commits
// an offset for a second group (which has no config), then
// lists the config resources of each type (and of every type at once).
// Prints one JSON line: for each query, the sorted "TYPE:name" entries it got
// back, or "error:<exception class>". Exits 0 (the test judges).
// Args: bootstrap topic group
import java.util.*;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.admin.*;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.config.ConfigResource;

public class ListConfigResourcesCheck {
  static String list(Admin admin, Set<ConfigResource.Type> types) throws InterruptedException {
    try {
      List<String> out = new ArrayList<>();
      for (ConfigResource r : admin.listConfigResources(types, new ListConfigResourcesOptions()).all().get())
        out.add(r.type() + ":" + r.name());
      Collections.sort(out);
      return String.join(",", out);
    } catch (ExecutionException e) {
      return "error:" + e.getCause().getClass().getSimpleName();
    }
  }

  public static void main(String[] args) throws Exception {
    String bootstrap = args[0], topic = args[1], group = args[2];
    Map<String, String> out = new LinkedHashMap<>();
    try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap))) {
      admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1))).all().get();
      ConfigResource g = new ConfigResource(ConfigResource.Type.GROUP, group);
      AlterConfigOp op = new AlterConfigOp(new ConfigEntry("consumer.session.timeout.ms", "50000"), AlterConfigOp.OpType.SET);
      admin.incrementalAlterConfigs(Map.of(g, List.of(op))).all().get();
      // A second group with committed offsets and no config (and so __consumer_offsets).
      admin.alterConsumerGroupOffsets(group + "-plain",
          Map.of(new org.apache.kafka.common.TopicPartition(topic, 0), new OffsetAndMetadata(0))).all().get();
      out.put("all", list(admin, Set.of()));
      for (ConfigResource.Type t : List.of(ConfigResource.Type.TOPIC, ConfigResource.Type.GROUP, ConfigResource.Type.BROKER,
               ConfigResource.Type.BROKER_LOGGER, ConfigResource.Type.CLIENT_METRICS, ConfigResource.Type.UNKNOWN))
        out.put(t.name(), list(admin, Set.of(t)));
    }
    StringJoiner j = new StringJoiner(", ", "{", "}");
    out.forEach((k, v) -> j.add("\"" + k + "\": \"" + v + "\""));
    System.out.println(j);
  }
}
