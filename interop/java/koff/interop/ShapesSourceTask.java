package koff.interop;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.connect.source.SourceRecord;
import org.apache.kafka.connect.source.SourceTask;

/**
 * Emits one record per source partition per poll. Partitions:
 * "ordered" (two fields in the reverse of Java HashMap order, so REST edits
 * miss it), "typed" (a long, a boolean, a double), and the null partition.
 * Offsets: {"seq":n,"lsn":2^53+1+n,"ratio":n/4.0,"done":bool}. The first
 * record of each partition after start carries "resumed_from": the offset
 * the worker gave the task, exactly as OffsetStorageReader returned it.
 */
public class ShapesSourceTask extends SourceTask {
    static final long LSN_BASE = 9007199254740993L; // 2^53 + 1: not a double

    private String topic;
    private long pollMs;
    private long maxSeq;
    private final List<Map<String, Object>> partitions = new ArrayList<>();
    private final List<String> names = new ArrayList<>();
    private final Map<Integer, Long> seq = new HashMap<>();
    private final Map<Integer, Map<String, Object>> resumedFrom = new HashMap<>();

    @Override
    public String version() {
        return "4.1.1-koff-interop";
    }

    static Map<String, Object> ordered() {
        Map<String, Object> hash = new HashMap<>();
        hash.put("zone", "eu-west");
        hash.put("account", 7L);
        List<String> keys = new ArrayList<>(hash.keySet());
        Map<String, Object> reversed = new LinkedHashMap<>();
        for (int i = keys.size() - 1; i >= 0; i--) {
            reversed.put(keys.get(i), hash.get(keys.get(i)));
        }
        return reversed;
    }

    static Map<String, Object> typed() {
        Map<String, Object> p = new HashMap<>();
        p.put("shard", 3L);
        p.put("primary", true);
        p.put("weight", 0.5);
        return p;
    }

    @Override
    public void start(Map<String, String> props) {
        AbstractConfig cfg = new AbstractConfig(ShapesSourceConnector.CONFIG, props);
        topic = cfg.getString(ShapesSourceConnector.TOPIC);
        pollMs = cfg.getLong(ShapesSourceConnector.POLL_MS);
        maxSeq = cfg.getLong(ShapesSourceConnector.MAX_SEQ);
        partitions.add(ordered());
        names.add("ordered");
        partitions.add(typed());
        names.add("typed");
        partitions.add(null);
        names.add("null");
        for (int i = 0; i < partitions.size(); i++) {
            Map<String, Object> off = context.offsetStorageReader().offset(partitions.get(i));
            resumedFrom.put(i, off);
            long s = 0;
            if (off != null && off.get("seq") instanceof Number) {
                s = ((Number) off.get("seq")).longValue();
            }
            seq.put(i, s);
        }
    }

    @Override
    public List<SourceRecord> poll() throws InterruptedException {
        Thread.sleep(pollMs);
        List<SourceRecord> out = new ArrayList<>();
        for (int i = 0; i < partitions.size(); i++) {
            long s = seq.get(i);
            // Past max.seq only the first record after a start is sent: it
            // says where the task resumed.
            if (s >= maxSeq && !resumedFrom.containsKey(i)) {
                continue;
            }
            s++;
            seq.put(i, s);
            Map<String, Object> offset = new LinkedHashMap<>();
            offset.put("seq", s);
            offset.put("lsn", LSN_BASE + s);
            offset.put("ratio", s / 4.0);
            offset.put("done", s % 2 == 0);
            Map<String, Object> value = new LinkedHashMap<>();
            value.put("partition", names.get(i));
            value.put("seq", s);
            if (resumedFrom.containsKey(i)) {
                value.put("resumed_from", resumedFrom.remove(i));
            }
            out.add(new SourceRecord(partitions.get(i), offset, topic, null, null, null, value));
        }
        return out.isEmpty() ? null : out;
    }

    @Override
    public void stop() {
    }
}
