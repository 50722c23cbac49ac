// Prints the test vectors of tests/remote/metadata_records_test.cc: the bytes
// Kafka 4.4.0's own RemoteLogMetadataSerde writes for __remote_log_metadata
// records, and the metadata partition its RemoteLogMetadataTopicPartitioner
// picks, for fixed inputs. Skiff's encoder must produce the same bytes and
// decode them back.
//
// Regenerate (the JDK and the jars of scripts/fetch_kafka_jars.sh):
//   J=$(scripts/fetch_kafka_jars.sh | tail -1)
//   javac -cp "$J/*" -d /tmp/rlmv tests/remote/kafka/RemoteLogMetadataVectors.java
//   java -cp "/tmp/rlmv:$J/*" RemoteLogMetadataVectors
// and paste the output into the test.

import java.util.HexFormat;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.server.log.remote.metadata.storage.RemoteLogMetadataTopicPartitioner;
import org.apache.kafka.server.log.remote.metadata.storage.RemoteLogSegmentMetadataSnapshot;
import org.apache.kafka.server.log.remote.metadata.storage.serialization.RemoteLogMetadataSerde;
import org.apache.kafka.server.log.remote.storage.RemoteLogMetadata;
import org.apache.kafka.server.log.remote.storage.RemoteLogSegmentId;
import org.apache.kafka.server.log.remote.storage.RemoteLogSegmentMetadata;
import org.apache.kafka.server.log.remote.storage.RemoteLogSegmentMetadata.CustomMetadata;
import org.apache.kafka.server.log.remote.storage.RemoteLogSegmentMetadataUpdate;
import org.apache.kafka.server.log.remote.storage.RemoteLogSegmentState;
import org.apache.kafka.server.log.remote.storage.RemotePartitionDeleteMetadata;
import org.apache.kafka.server.log.remote.storage.RemotePartitionDeleteState;

public class RemoteLogMetadataVectors {
    static final RemoteLogMetadataSerde SERDE = new RemoteLogMetadataSerde();

    static void print(String name, RemoteLogMetadata m) {
        byte[] bytes = SERDE.serialize(m);
        System.out.println(name + " " + HexFormat.of().formatHex(bytes));
        // Kafka reads its own bytes back to the same value.
        if (!SERDE.deserialize(bytes).equals(m)) throw new IllegalStateException(name + " does not round-trip");
    }

    public static void main(String[] args) {
        TopicIdPartition tp = new TopicIdPartition(Uuid.fromString("AAECAwQFBgcICQoLDA0ODw"), 7, "orders");
        RemoteLogSegmentId id = new RemoteLogSegmentId(tp, Uuid.fromString("EBESExQVFhcYGRobHB0eHw"));
        Map<Integer, Long> epochs = new TreeMap<>(Map.of(0, 100L, 3, 150L));

        print("segment_copy_started", new RemoteLogSegmentMetadata(id, 100L, 199L, 1700000000123L, 1,
                1700000000456L, 1048576, Optional.empty(), RemoteLogSegmentState.COPY_SEGMENT_STARTED, epochs));
        print("segment_txn_custom", new RemoteLogSegmentMetadata(id, 100L, 199L, 1700000000123L, 1,
                1700000000456L, 1048576, Optional.of(new CustomMetadata(new byte[] {1, 2, 3})),
                RemoteLogSegmentState.COPY_SEGMENT_STARTED, epochs, true));
        print("update_copy_finished", new RemoteLogSegmentMetadataUpdate(id, 1700000000789L,
                Optional.of(new CustomMetadata(new byte[] {(byte) 0xca, (byte) 0xfe})),
                RemoteLogSegmentState.COPY_SEGMENT_FINISHED, 1));
        print("update_delete_started", new RemoteLogSegmentMetadataUpdate(id, 1700000000999L, Optional.empty(),
                RemoteLogSegmentState.DELETE_SEGMENT_STARTED, 1));
        print("partition_delete_marked", new RemotePartitionDeleteMetadata(tp,
                RemotePartitionDeleteState.DELETE_PARTITION_MARKED, 1700000001000L, 1));
        print("snapshot", new RemoteLogSegmentMetadataSnapshot(Uuid.fromString("EBESExQVFhcYGRobHB0eHw"), 100L, 199L,
                1700000000123L, 1, 1700000000789L, 1048576, Optional.empty(),
                RemoteLogSegmentState.COPY_SEGMENT_FINISHED, epochs, false));

        // The state machines: every (from, to) pair, from null (no state yet) included, as 0/1 strings.
        StringBuilder seg = new StringBuilder();
        for (int from = -1; from < 4; ++from)
            for (byte to = 0; to < 4; ++to)
                seg.append(RemoteLogSegmentState.isValidTransition(
                        from < 0 ? null : RemoteLogSegmentState.forId((byte) from), RemoteLogSegmentState.forId(to)) ? '1' : '0');
        System.out.println("segment_transitions " + seg);
        StringBuilder del = new StringBuilder();
        for (int from = -1; from < 3; ++from)
            for (byte to = 0; to < 3; ++to)
                del.append(RemotePartitionDeleteState.isValidTransition(
                        from < 0 ? null : RemotePartitionDeleteState.forId((byte) from),
                        RemotePartitionDeleteState.forId(to)) ? '1' : '0');
        System.out.println("partition_delete_transitions " + del);

        // The partitioner, over 50 and 7 metadata partitions.
        String[] ids = {"AAECAwQFBgcICQoLDA0ODw", "ZmT3eUqBR0ubrRdG7Zf6ug", "_____________________w", "AAAAAAAAAAAAAAAAAAAAAQ"};
        int[] parts = {0, 1, 7, 49, 1000, Integer.MAX_VALUE};
        for (String u : ids) {
            for (int p : parts) {
                TopicIdPartition t = new TopicIdPartition(Uuid.fromString(u), p, "t");
                System.out.println("partition " + u + " " + p + " "
                        + new RemoteLogMetadataTopicPartitioner(50).metadataPartition(t) + " "
                        + new RemoteLogMetadataTopicPartitioner(7).metadataPartition(t));
            }
        }
    }
}
