#include "coordinator/group/consumer_group_log.h"

#include <algorithm>

#include "common/wall_clock.h"
#include "coordinator/group/generated/consumer_group_current_member_assignment_key.h"
#include "coordinator/group/generated/consumer_group_current_member_assignment_value.h"
#include "coordinator/group/generated/consumer_group_member_metadata_key.h"
#include "coordinator/group/generated/consumer_group_member_metadata_value.h"
#include "coordinator/group/generated/consumer_group_metadata_key.h"
#include "coordinator/group/generated/consumer_group_metadata_value.h"
#include "coordinator/group/generated/consumer_group_partition_metadata_key.h"
#include "coordinator/group/generated/consumer_group_regular_expression_key.h"
#include "coordinator/group/generated/consumer_group_regular_expression_value.h"
#include "coordinator/group/generated/consumer_group_target_assignment_member_key.h"
#include "coordinator/group/generated/consumer_group_target_assignment_member_value.h"
#include "coordinator/group/generated/consumer_group_target_assignment_metadata_key.h"
#include "coordinator/group/generated/consumer_group_target_assignment_metadata_value.h"
#include "coordinator/group/modern_group_log.h"
#include "protocol/coordinator_record.h"

namespace skiff::group {
namespace {

using namespace skiff::protocol;
using modern_log::decode_group_key;
using modern_log::decode_member_key;
using modern_log::from_parts;
using modern_log::to_parts;
constexpr std::string_view kLog = "__consumer_offsets";

std::vector<uint8_t> member_value(const ConsumerGroupMember& m) {
  ConsumerGroupMemberMetadataValue v;
  v.instance_id = m.instance_id;
  v.rack_id = m.rack_id;
  v.client_id = m.client_id;
  v.client_host = m.client_host;
  v.subscribed_topic_names = m.subscribed_names;
  v.subscribed_topic_regex = m.subscribed_regex;
  v.rebalance_timeout_ms = m.rebalance_timeout_ms;
  v.server_assignor = m.server_assignor;
  v.classic_member_metadata = std::nullopt;
  if (m.classic) {
    auto& c = v.classic_member_metadata.emplace();
    c.session_timeout_ms = m.classic->session_timeout_ms;
    for (const auto& p : m.classic->protocols) {
      auto& cp = c.supported_protocols.emplace_back();
      cp.name = p.name;
      cp.metadata = p.metadata;
    }
  }
  return encode_prefixed(0, v, 0);
}

// Partitions with their AssignmentEpochs (tagged; Kafka 4.4 writes them for
// every topic, one per partition).
template <class Parts>
Parts to_parts_with_epochs(const consumer::Assignment& a, const consumer::MemberAssignmentState& s) {
  Parts out = to_parts<Parts>(a);
  for (auto& tp : out) {
    std::vector<int32_t> epochs;
    for (int32_t p : tp.partitions) epochs.push_back(consumer::assignment_epoch(s, tp.topic_id, p).value_or(0));
    tp.assignment_epochs = std::move(epochs);
  }
  return out;
}

// Kafka's Utils.assignmentFromTopicPartitions: epochs absent or not one per
// partition mean "assigned at the member's epoch".
template <class Parts>
void read_epochs(const Parts& parts, consumer::MemberAssignmentState& s) {
  for (const auto& tp : parts) {
    const bool given = tp.assignment_epochs && tp.assignment_epochs->size() == tp.partitions.size();
    for (size_t i = 0; i < tp.partitions.size(); ++i)
      s.assignment_epochs[tp.topic_id][tp.partitions[i]] =
          given ? (*tp.assignment_epochs)[i] : std::max(s.member_epoch, 0);
  }
}

std::vector<uint8_t> current_value(const consumer::MemberAssignmentState& s) {
  ConsumerGroupCurrentMemberAssignmentValue v;
  v.member_epoch = s.member_epoch;
  v.previous_member_epoch = s.previous_member_epoch;
  v.state = static_cast<int8_t>(s.state);
  v.assigned_partitions = to_parts_with_epochs<decltype(v.assigned_partitions)>(s.assigned, s);
  v.partitions_pending_revocation =
      to_parts_with_epochs<decltype(v.partitions_pending_revocation)>(s.pending_revocation, s);
  return encode_prefixed(0, v, 0);
}

void decode_member(ConsumerGroupRecord& r, ByteReader& vr) {
  auto v = decode_versioned<ConsumerGroupMemberMetadataValue>(vr, kLog);
  r.member.instance_id = std::move(v.instance_id);
  r.member.rack_id = std::move(v.rack_id);
  r.member.client_id = std::move(v.client_id);
  r.member.client_host = std::move(v.client_host);
  r.member.subscribed_names = std::move(v.subscribed_topic_names);
  if (v.subscribed_topic_regex && !v.subscribed_topic_regex->empty())
    r.member.subscribed_regex = std::move(v.subscribed_topic_regex);
  r.member.rebalance_timeout_ms = v.rebalance_timeout_ms;
  r.member.server_assignor = std::move(v.server_assignor);
  if (v.classic_member_metadata) {
    auto& c = r.member.classic.emplace();
    c.session_timeout_ms = v.classic_member_metadata->session_timeout_ms;
    for (auto& p : v.classic_member_metadata->supported_protocols)
      c.protocols.push_back({std::move(p.name), std::move(p.metadata)});
  }
}

void decode_current(ConsumerGroupRecord& r, ByteReader& vr) {
  auto v = decode_versioned<ConsumerGroupCurrentMemberAssignmentValue>(vr, kLog);
  auto& s = r.member.assignment;
  s.member_epoch = v.member_epoch;
  s.previous_member_epoch = v.previous_member_epoch;
  s.state =
      v.state >= 0 && v.state <= 2 ? static_cast<consumer::MemberState>(v.state) : consumer::MemberState::kUnknown;
  s.assigned = from_parts(v.assigned_partitions);
  s.pending_revocation = from_parts(v.partitions_pending_revocation);
  read_epochs(v.assigned_partitions, s);
  read_epochs(v.partitions_pending_revocation, s);
}

void decode_regex(ConsumerGroupRecord& r, ByteReader& kr, std::optional<ByteReader>& vr) {
  ConsumerGroupRegularExpressionKey k;
  k.decode(kr, 0);
  r.group_id = std::move(k.group_id);
  r.regex = std::move(k.regular_expression);
  if (!vr) return;
  auto v = decode_versioned<ConsumerGroupRegularExpressionValue>(*vr, kLog);
  r.resolved.topics.insert(v.topics.begin(), v.topics.end());
  r.resolved.version = kStaleTopicsVersion;  // another process's topics version: resolve again
  r.resolved.timestamp_ms = v.timestamp;
}

bool same_metadata(const ConsumerGroupMember& a, const ConsumerGroupMember& b) {
  return a.instance_id == b.instance_id && a.rack_id == b.rack_id && a.client_id == b.client_id &&
         a.client_host == b.client_host && a.subscribed_names == b.subscribed_names &&
         a.subscribed_regex == b.subscribed_regex && a.server_assignor == b.server_assignor &&
         a.rebalance_timeout_ms == b.rebalance_timeout_ms && a.classic == b.classic;
}

ConsumerGroupRecord record(int16_t type, const std::string& group, const std::string& member = {}) {
  ConsumerGroupRecord r;
  r.type = type;
  r.group_id = group;
  r.member_id = member;
  return r;
}

void add_member_changes(std::vector<ConsumerGroupRecord>& out, const std::string& g, const ConsumerGroupImage& before,
                        const ConsumerGroup& now, bool metadata) {
  for (const auto& [id, m] : now.members) {
    auto old = before.members.find(id);
    const bool fresh = old == before.members.end();
    if (metadata && (fresh || !same_metadata(old->second, m))) {
      auto& r = out.emplace_back(record(kConsumerMemberMetadataType, g, id));
      r.member = m;
    }
    if (!metadata && (fresh || old->second.assignment != m.assignment)) {
      auto& r = out.emplace_back(record(kConsumerCurrentAssignmentType, g, id));
      r.member.assignment = m.assignment;
    }
  }
}

void add_regex_changes(std::vector<ConsumerGroupRecord>& out, const std::string& g, const ConsumerGroupImage& before,
                       const ConsumerGroup& now) {
  for (const auto& [regex, r] : before.regexes) {
    if (now.regexes.contains(regex)) continue;
    auto& t = out.emplace_back(record(kConsumerRegexType, g));
    t.regex = regex;
    t.tombstone = true;
  }
  for (const auto& [regex, r] : now.regexes) {
    if (r.timestamp_ms == 0) continue;  // never resolved (no lister): nothing to keep
    auto old = before.regexes.find(regex);
    if (old != before.regexes.end() && old->second.topics == r.topics && old->second.timestamp_ms == r.timestamp_ms)
      continue;
    auto& rec = out.emplace_back(record(kConsumerRegexType, g));
    rec.regex = regex;
    rec.resolved = r;
  }
}

std::vector<uint8_t> regex_value(const ResolvedRegex& r) {
  ConsumerGroupRegularExpressionValue v;
  v.topics.assign(r.topics.begin(), r.topics.end());
  v.version_ = r.version == kStaleTopicsVersion ? -1 : static_cast<int64_t>(r.version);
  v.timestamp = r.timestamp_ms;
  return encode_prefixed(0, v, 0);
}

}  // namespace

std::vector<ConsumerGroupRecord> consumer_records_since(const std::string& g, const ConsumerGroupImage& before,
                                                        const ConsumerGroup& now) {
  std::vector<ConsumerGroupRecord> out;
  for (const auto& [id, m] : before.members) {
    if (now.members.contains(id)) continue;
    for (int16_t type : {kConsumerCurrentAssignmentType, kConsumerTargetMemberType, kConsumerMemberMetadataType}) {
      out.push_back(record(type, g, id));
      out.back().tombstone = true;
    }
  }
  add_member_changes(out, g, before, now, /*metadata=*/true);
  add_regex_changes(out, g, before, now);
  if (now.group_epoch != before.group_epoch || now.metadata_hash != before.metadata_hash) {
    auto& r = out.emplace_back(record(kConsumerGroupMetadataType, g));
    r.epoch = now.group_epoch;
    r.metadata_hash = now.metadata_hash;
  }
  for (const auto& [id, a] : now.target) {
    auto old = before.target.find(id);
    if (old != before.target.end() && old->second == a) continue;
    out.emplace_back(record(kConsumerTargetMemberType, g, id)).target = a;
  }
  if (now.assignment_epoch != before.assignment_epoch)
    out.emplace_back(record(kConsumerTargetMetadataType, g)).epoch = now.assignment_epoch;
  add_member_changes(out, g, before, now, /*metadata=*/false);
  return out;
}

std::vector<ConsumerGroupRecord> consumer_group_tombstones(const std::string& g) {
  std::vector<ConsumerGroupRecord> out{record(kConsumerTargetMetadataType, g), record(kConsumerGroupMetadataType, g)};
  for (auto& r : out) r.tombstone = true;
  return out;
}

bool is_consumer_record_type(int16_t type) {
  return (type >= kConsumerGroupMetadataType && type <= kConsumerCurrentAssignmentType) || type == kConsumerRegexType;
}

std::vector<uint8_t> encode_consumer_key(const ConsumerGroupRecord& r) {
  auto member_key = [&](auto k) {
    k.group_id = r.group_id;
    k.member_id = r.member_id;
    return encode_prefixed(r.type, k, 0);
  };
  auto group_key = [&](auto k) {
    k.group_id = r.group_id;
    return encode_prefixed(r.type, k, 0);
  };
  switch (r.type) {
    case kConsumerMemberMetadataType:
      return member_key(ConsumerGroupMemberMetadataKey{});
    case kConsumerTargetMemberType:
      return member_key(ConsumerGroupTargetAssignmentMemberKey{});
    case kConsumerCurrentAssignmentType:
      return member_key(ConsumerGroupCurrentMemberAssignmentKey{});
    case kConsumerTargetMetadataType:
      return group_key(ConsumerGroupTargetAssignmentMetadataKey{});
    case kConsumerRegexType: {
      ConsumerGroupRegularExpressionKey k;
      k.group_id = r.group_id;
      k.regular_expression = r.regex;
      return encode_prefixed(r.type, k, 0);
    }
    default:
      return group_key(ConsumerGroupMetadataKey{});
  }
}

std::optional<std::vector<uint8_t>> encode_consumer_value(const ConsumerGroupRecord& r) {
  if (r.tombstone) return std::nullopt;
  switch (r.type) {
    case kConsumerMemberMetadataType:
      return member_value(r.member);
    case kConsumerTargetMemberType: {
      ConsumerGroupTargetAssignmentMemberValue v;
      v.topic_partitions = to_parts<decltype(v.topic_partitions)>(r.target);
      return encode_prefixed(0, v, 0);
    }
    case kConsumerCurrentAssignmentType:
      return current_value(r.member.assignment);
    case kConsumerTargetMetadataType: {
      ConsumerGroupTargetAssignmentMetadataValue v;
      v.assignment_epoch = r.epoch;
      v.assignment_timestamp = wall_clock_ms();
      return encode_prefixed(0, v, 0);
    }
    case kConsumerRegexType:
      return regex_value(r.resolved);
    default: {
      ConsumerGroupMetadataValue v;
      v.epoch = r.epoch;
      v.metadata_hash = r.metadata_hash;
      return encode_prefixed(0, v, 0);
    }
  }
}

ConsumerGroupRecord decode_consumer_record(int16_t type, ByteReader& kr,
                                           std::optional<std::span<const uint8_t>> value) {
  ConsumerGroupRecord r;
  r.type = type;
  r.tombstone = !value;
  std::optional<ByteReader> vr;
  if (value) vr.emplace(*value);
  switch (type) {
    case kConsumerMemberMetadataType:
      decode_member_key<ConsumerGroupMemberMetadataKey>(r, kr);
      if (vr) decode_member(r, *vr);
      break;
    case kConsumerTargetMemberType:
      decode_member_key<ConsumerGroupTargetAssignmentMemberKey>(r, kr);
      if (vr)
        r.target = from_parts(decode_versioned<ConsumerGroupTargetAssignmentMemberValue>(*vr, kLog).topic_partitions);
      break;
    case kConsumerCurrentAssignmentType:
      decode_member_key<ConsumerGroupCurrentMemberAssignmentKey>(r, kr);
      if (vr) decode_current(r, *vr);
      break;
    case kConsumerTargetMetadataType:
      decode_group_key<ConsumerGroupTargetAssignmentMetadataKey>(r, kr);
      if (vr) r.epoch = decode_versioned<ConsumerGroupTargetAssignmentMetadataValue>(*vr, kLog).assignment_epoch;
      break;
    case kConsumerGroupPartitionMetadataType:
      decode_group_key<ConsumerGroupPartitionMetadataKey>(r, kr);  // value ignored (Kafka < 4.1)
      break;
    case kConsumerRegexType:
      decode_regex(r, kr, vr);
      break;
    default:
      decode_group_key<ConsumerGroupMetadataKey>(r, kr);
      if (vr) {
        auto v = decode_versioned<ConsumerGroupMetadataValue>(*vr, kLog);
        r.epoch = v.epoch;
        r.metadata_hash = v.metadata_hash;
      }
  }
  return r;
}

}  // namespace skiff::group
