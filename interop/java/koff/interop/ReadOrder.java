package koff.interop;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.connect.util.KafkaBasedLog;

/**
 * Prints, for each topic named, the partitions of its records in the order a
 * freshly started KafkaBasedLog hands them to its consumed callback (as
 * KafkaOffsetBackingStore's): one line "topic p p p ...", a partition once
 * per run of its records.
 *
 * Usage: ReadOrder BOOTSTRAP TOPIC...
 */
public final class ReadOrder {
    public static void main(String[] args) {
        for (int i = 1; i < args.length; i++) {
            String topic = args[i];
            Map<String, Object> consumer = new HashMap<>();
            consumer.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, args[0]);
            consumer.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
            consumer.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
            Map<String, Object> producer = new HashMap<>();
            producer.put("bootstrap.servers", args[0]);
            producer.put("key.serializer", ByteArraySerializer.class.getName());
            producer.put("value.serializer", ByteArraySerializer.class.getName());
            List<Integer> order = new ArrayList<>();
            KafkaBasedLog<byte[], byte[]> log = new KafkaBasedLog<>(topic, producer, consumer, () -> null,
                (error, record) -> {
                    if (order.isEmpty() || order.get(order.size() - 1) != record.partition()) {
                        order.add(record.partition());
                    }
                }, Time.SYSTEM, null);
            log.start();
            log.stop();
            StringBuilder line = new StringBuilder(topic);
            for (int p : order) {
                line.append(' ').append(p);
            }
            System.out.println(line);
        }
    }
}
