// A Kafka Connect source connector for tests/integration/test_connect.py: one
// task that produces nothing. The connector hands its whole config to the
// task, so every connector config update also rewrites the task config (and
// its commit record) in Connect's config topic, as a real connector's would.
// Built against connect-api by scripts/install-test-clients.sh java (the
// jars of scripts/fetch_kafka_jars.sh's connect set); found by Connect
// through the META-INF/services entry that script writes into its jar.
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.connect.connector.Task;
import org.apache.kafka.connect.source.SourceConnector;
import org.apache.kafka.connect.source.SourceRecord;
import org.apache.kafka.connect.source.SourceTask;

public class IdleSourceConnector extends SourceConnector {
    private Map<String, String> props = new HashMap<>();

    @Override
    public String version() {
        return "1";
    }

    @Override
    public void start(Map<String, String> props) {
        this.props = new HashMap<>(props);
    }

    @Override
    public Class<? extends Task> taskClass() {
        return IdleTask.class;
    }

    @Override
    public List<Map<String, String>> taskConfigs(int maxTasks) {
        return List.of(new HashMap<>(props));
    }

    @Override
    public void stop() {
    }

    @Override
    public ConfigDef config() {
        return new ConfigDef();
    }

    public static class IdleTask extends SourceTask {
        public IdleTask() {
        }

        @Override
        public String version() {
            return "1";
        }

        @Override
        public void start(Map<String, String> props) {
        }

        @Override
        public List<SourceRecord> poll() throws InterruptedException {
            Thread.sleep(20);
            return null;
        }

        @Override
        public void stop() {
        }
    }
}
