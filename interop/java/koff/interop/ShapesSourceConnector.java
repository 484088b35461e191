package koff.interop;

import java.util.Collections;
import java.util.List;
import java.util.Map;

import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.connect.connector.Task;
import org.apache.kafka.connect.source.ExactlyOnceSupport;
import org.apache.kafka.connect.source.SourceConnector;

/**
 * A source connector for koff's real-stack tests: its source partitions and
 * offsets have the shapes no connector shipped with Kafka has (field order
 * that is not HashMap order, integers above 2^53, doubles, booleans, a null
 * partition), and its task says in its first record of each partition which
 * offset it resumed from, so a test sees where a real task continues.
 */
public class ShapesSourceConnector extends SourceConnector {
    static final String TOPIC = "topic";
    static final String POLL_MS = "poll.ms";
    static final String MAX_SEQ = "max.seq";

    static final ConfigDef CONFIG = new ConfigDef()
        .define(TOPIC, ConfigDef.Type.STRING, ConfigDef.Importance.HIGH, "Topic the records go to")
        .define(POLL_MS, ConfigDef.Type.LONG, 1000L, ConfigDef.Importance.LOW, "Pause between batches")
        .define(MAX_SEQ, ConfigDef.Type.LONG, Long.MAX_VALUE, ConfigDef.Importance.LOW,
            "Stop producing once every partition reached this sequence number");

    private Map<String, String> props;

    @Override
    public void start(Map<String, String> props) {
        this.props = props;
    }

    @Override
    public Class<? extends Task> taskClass() {
        return ShapesSourceTask.class;
    }

    @Override
    public List<Map<String, String>> taskConfigs(int maxTasks) {
        return Collections.singletonList(props);
    }

    @Override
    public void stop() {
    }

    @Override
    public ConfigDef config() {
        return CONFIG;
    }

    @Override
    public String version() {
        return "4.1.1-koff-interop";
    }

    @Override
    public ExactlyOnceSupport exactlyOnceSupport(Map<String, String> props) {
        return ExactlyOnceSupport.SUPPORTED;
    }
}
