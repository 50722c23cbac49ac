// Prints __transaction_state records serialized by Kafka's own classes, one
// "name key-hex value-hex" line each (value "-" for a tombstone), so that
// tests/coordinator/txn can check Skiff's generated TransactionLogKey / TransactionLogValue
// byte for byte. Its output is committed as transaction_log_vectors.txt;
// tests/support/check_against_kafka.sh (ctest txn_log_vectors_match_kafka, label
// integration) re-runs it against Kafka's jars and diffs.
import java.util.HexFormat;
import java.util.List;

import org.apache.kafka.common.protocol.MessageUtil;
import org.apache.kafka.coordinator.transaction.generated.TransactionLogKey;
import org.apache.kafka.coordinator.transaction.generated.TransactionLogValue;

public class TxnLogVectors {
    static String hex(byte[] b) { return HexFormat.of().formatHex(b); }

    static String key(String id) {
        return hex(MessageUtil.toCoordinatorTypePrefixedBytes(new TransactionLogKey().setTransactionalId(id)));
    }

    static void line(String name, String id, short version, TransactionLogValue v) {
        String value = v == null ? "-" : hex(MessageUtil.toVersionPrefixedBytes(version, v));
        System.out.println(name + " " + key(id) + " " + value);
    }

    static TransactionLogValue.PartitionsSchema parts(String topic, Integer... ids) {
        return new TransactionLogValue.PartitionsSchema().setTopic(topic).setPartitionIds(List.of(ids));
    }

    public static void main(String[] args) {
        // Empty, version 0 (TV0/TV1): partitions null, as TransactionLog.valueToBytes writes it.
        line("empty_v0", "app-1", (short) 0, new TransactionLogValue()
            .setProducerId(1000L).setProducerEpoch((short) 0).setTransactionTimeoutMs(60000)
            .setTransactionStatus((byte) 0).setTransactionPartitions(null)
            .setTransactionLastUpdateTimestampMs(1700000000000L).setTransactionStartTimestampMs(-1L));
        // Ongoing, version 0, two topics. Kafka groups partitions through a HashMap, so its topic
        // order is unspecified; Skiff writes topics and partitions sorted, as listed here.
        line("ongoing_v0", "app-1", (short) 0, new TransactionLogValue()
            .setProducerId(1000L).setProducerEpoch((short) 3).setTransactionTimeoutMs(60000)
            .setTransactionStatus((byte) 1)
            .setTransactionPartitions(List.of(parts("__consumer_offsets", 17), parts("orders", 0, 2)))
            .setTransactionLastUpdateTimestampMs(1700000000500L).setTransactionStartTimestampMs(1700000000100L));
        // PrepareCommit, version 1 (TV2): client transaction version 2, tagged fields at their defaults.
        line("prepare_commit_v1", "tx\u00e9-2", (short) 1, new TransactionLogValue()
            .setProducerId(2000L).setProducerEpoch((short) 8).setTransactionTimeoutMs(900000)
            .setTransactionStatus((byte) 2).setTransactionPartitions(List.of(parts("t", 5)))
            .setTransactionLastUpdateTimestampMs(1700000001000L).setTransactionStartTimestampMs(1700000000900L)
            .setClientTransactionVersion((short) 2));
        // CompleteAbort, version 1, every tagged field set.
        line("complete_abort_v1_tags", "id", (short) 1, new TransactionLogValue()
            .setProducerId(3001L).setPreviousProducerId(3000L).setNextProducerId(3002L)
            .setProducerEpoch((short) 0).setNextProducerEpoch((short) 1).setTransactionTimeoutMs(1000)
            .setTransactionStatus((byte) 5).setTransactionPartitions(List.of())
            .setTransactionLastUpdateTimestampMs(5L).setTransactionStartTimestampMs(4L)
            .setClientTransactionVersion((short) 2));
        // Tombstone: transactional id expired (Dead).
        line("tombstone", "gone", (short) 0, null);
    }
}
