#include "api/features.h"

namespace skiff::api {
namespace {

// metadata.version 25 is Kafka's 4.0-IV3, the last level of Kafka 4.0. Its
// inter-broker Fetch (v17) and ListOffsets (v10) are the newest versions
// Skiff serves (4.1-IV1 needs Fetch v18, 4.2-IV1 ListOffsets v11). Skiff
// cannot run at an older level, so the supported range is this one level.
// transaction.version 2 (KIP-890), finalized as Kafka 4.x does: a Java 4.x
// producer takes the TV2 path on the finalized level alone (TransactionManager.
// maybeUpdateTransactionV2Enabled checks nothing else) and skips
// AddPartitionsToTxn, relying on Produce v12+ (implicit add), EndTxn v5 and
// TxnOffsetCommit v5+, all served. Levels 0-1 stay supported for the
// coordinator's TV1 path (clients that send AddPartitionsToTxn). The
// coordinator (coordinator/txn/txn_host.h) follows the level this table finalizes.
// group.version 1 (KIP-848): the consumer group protocol is served
// (ConsumerGroupHeartbeat, ConsumerGroupDescribe); a Java 4.x consumer with
// group.protocol=consumer checks it before using them. Kafka 4.4 supports 0-1.
// share.version 2 (KIP-932 + KIP-1191), as Kafka 4.4 finalizes it: share
// groups are served (ShareGroupHeartbeat, ShareFetch, ShareAcknowledge, the
// share-group admin APIs; level 1) and their dead-letter queue (level 2:
// rejected and exhausted records copied to the group's
// errors.deadletterqueue.topic.name, server/share_dead_letters.h).
// streams.version 1 (KIP-1071), as Kafka 4.4 finalizes it: streams groups
// are served (StreamsGroupHeartbeat, StreamsGroupDescribe,
// StreamsGroupTopologyDescriptionUpdate); a Kafka Streams 4.x application
// with group.protocol=streams needs it. Kafka 4.4 supports 0-1.
// Each of group.version, share.version, streams.version and transaction.version may be set
// to any level of its range with UpdateFeatures; what reads the level reads
// it live (api/feature_levels.h says where).
constexpr Feature kFeatures[] = {
    {"group.version", 0, 1, 1},   {"metadata.version", 25, 25, 25}, {"share.version", 0, 2, 2},
    {"streams.version", 0, 1, 1}, {"transaction.version", 0, 2, 2},
};

// Kafka's VersionRange text: "7-33", or "25" for a single level.
std::string range_text(const Feature& f) {
  if (f.min_supported == f.max_supported) return std::to_string(f.min_supported);
  return std::to_string(f.min_supported) + "-" + std::to_string(f.max_supported);
}

}  // namespace

std::span<const Feature> features() { return kFeatures; }

const Feature* find_feature(std::string_view name, std::span<const Feature> table) {
  for (const auto& f : table)
    if (f.name == name) return &f;
  return nullptr;
}

std::optional<std::string> feature_update_refusal(std::span<const Feature> table, const std::string& name,
                                                  int16_t level, int8_t type, int32_t node_id, int16_t current) {
  constexpr int8_t kUpgrade = 1, kUnsafeDowngrade = 3;
  auto invalid = [&](const std::string& why) {
    return "Invalid update version " + std::to_string(level) + " for feature " + name + ". " + why;
  };
  if (type < kUpgrade || type > kUnsafeDowngrade)
    return invalid("The controller does not support the given upgrade type.");
  if (level < 0) return invalid("A feature version cannot be less than 0.");
  const Feature* f = find_feature(name, table);
  if (!f && level == 0) return invalid("Feature " + name + " not found.");
  const auto controller = "Local controller " + std::to_string(node_id);
  if (!f) return invalid(controller + " does not support this feature.");
  if (level < f->min_supported || level > f->max_supported)
    return invalid(controller + " only supports versions " + range_text(*f));
  if (level < current && type == kUpgrade)
    return invalid(
        "Can't downgrade the version of this feature without setting the upgrade type to either safe or "
        "unsafe downgrade.");
  if (level > current && type != kUpgrade) return invalid("Can't downgrade to a newer version.");
  return std::nullopt;
}

}  // namespace skiff::api
