// Prints __share_group_state records serialized by Kafka's own classes, one
// "name key-hex value-hex" line each (value "-" for a tombstone), so that
// tests/coordinator/share can check Skiff's generated ShareSnapshot*/ShareUpdate*
// byte for byte. Its output is committed as share_record_vectors.txt;
// tests/support/check_against_kafka.sh (ctest share_record_vectors_match_kafka,
// label integration) re-runs it against Kafka's jars and diffs.
import java.util.HexFormat;
import java.util.List;

import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.MessageUtil;
import org.apache.kafka.coordinator.share.generated.ShareSnapshotKey;
import org.apache.kafka.coordinator.share.generated.ShareSnapshotValue;
import org.apache.kafka.coordinator.share.generated.ShareUpdateKey;
import org.apache.kafka.coordinator.share.generated.ShareUpdateValue;

public class ShareRecordVectors {
    static final Uuid TOPIC = Uuid.fromString("q5BwgPNDRzeTLW6sPvIzWg");

    static String hex(byte[] b) { return HexFormat.of().formatHex(b); }

    static void line(String name, ApiMessage key, ApiMessage value) {
        String v = value == null ? "-" : hex(MessageUtil.toVersionPrefixedBytes((short) 0, value));
        System.out.println(name + " " + hex(MessageUtil.toCoordinatorTypePrefixedBytes(key)) + " " + v);
    }

    public static void main(String[] args) {
        ShareSnapshotKey sk = new ShareSnapshotKey().setGroupId("g\u00e9").setTopicId(TOPIC).setPartition(3);
        // An initialize: no batches, delivery complete count 0 (written: tagged field).
        line("snapshot_init", sk, new ShareSnapshotValue().setSnapshotEpoch(0).setStateEpoch(1).setLeaderEpoch(0)
            .setStartOffset(100L).setDeliveryCompleteCount(0).setCreateTimestamp(1700000000000L)
            .setWriteTimestamp(1700000000000L).setStateBatches(List.of()));
        // A snapshot with batches and the default (-1) delivery complete count (not written).
        line("snapshot_batches", sk, new ShareSnapshotValue().setSnapshotEpoch(4).setStateEpoch(2).setLeaderEpoch(7)
            .setStartOffset(10L).setCreateTimestamp(1700000000500L).setWriteTimestamp(1700000000600L)
            .setStateBatches(List.of(
                new ShareSnapshotValue.StateBatch().setFirstOffset(10L).setLastOffset(19L)
                    .setDeliveryState((byte) 2).setDeliveryCount((short) 1),
                new ShareSnapshotValue.StateBatch().setFirstOffset(20L).setLastOffset(29L)
                    .setDeliveryState((byte) 0).setDeliveryCount((short) 3))));
        ShareUpdateKey uk = new ShareUpdateKey().setGroupId("g\u00e9").setTopicId(TOPIC).setPartition(3);
        line("update", uk, new ShareUpdateValue().setSnapshotEpoch(4).setLeaderEpoch(7).setStartOffset(12L)
            .setDeliveryCompleteCount(5).setStateBatches(List.of(
                new ShareUpdateValue.StateBatch().setFirstOffset(12L).setLastOffset(15L)
                    .setDeliveryState((byte) 4).setDeliveryCount((short) 2))));
        line("tombstone", sk, null);
    }
}
