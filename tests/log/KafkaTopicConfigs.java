// Prints Kafka's topic configs (LogConfig.configKeys()) as the table
// tests/log/kafka_4_4_topic_configs.txt holds: name, type, default,
// validator, broker synonym, internal. tests/support/check_against_kafka.sh
// (ctest log_kafka_topic_configs_match) diffs it with the committed copy.
// To regenerate (from the repository root):
//   javac -d /tmp -cp "$HOME/.cache/skiff/kafka-4.4.0/*" tests/log/KafkaTopicConfigs.java
//   java -cp "$HOME/.cache/skiff/kafka-4.4.0/*:/tmp" KafkaTopicConfigs > tests/log/kafka_4_4_topic_configs.txt
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.server.config.ServerTopicConfigSynonyms;
import org.apache.kafka.storage.internals.log.LogConfig;

public class KafkaTopicConfigs {
  public static void main(String[] args) {
    Map<String, ConfigDef.ConfigKey> keys = new TreeMap<>(LogConfig.configKeys());
    System.out.println("# name\ttype\tdefault\tvalidator\tbroker_synonym\tinternal (Kafka 4.4.0 LogConfig.configKeys())");
    for (ConfigDef.ConfigKey k : keys.values()) {
      String def = !k.hasDefault() || k.defaultValue == null ? "<none>" : ConfigDef.convertToString(k.defaultValue, k.type);
      String syn = ServerTopicConfigSynonyms.TOPIC_CONFIG_SYNONYMS.getOrDefault(k.name, "");
      System.out.println(k.name + "\t" + k.type + "\t" + def + "\t" + k.validator + "\t" + syn + "\t" + k.internalConfig);
    }
  }
}
