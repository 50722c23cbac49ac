// The group endpoints: list, describe, reset offsets, delete
// (docs/console-api.md). Classic groups are described with DescribeGroups,
// KIP-848 consumer groups with ConsumerGroupDescribe; offsets and lag come
// from OffsetFetch and ListOffsets, a reset is an OffsetCommit as
// kafka-consumer-groups --reset-offsets sends it (generation -1). Share
// groups (KIP-932) are described in console_share_groups.cc; they have no
// reset here (400). Streams groups (KIP-1071) are described in
// console_streams_groups.cc; their offsets and lag are the consumer groups',
// and a reset of an Empty one moves only its topology's input topics (as
// kafka-streams-groups --reset-offsets does; repartition topics are left).
#include "apps/console/console_endpoints.h"
#include "protocol/consumer_protocol.h"
#include "protocol/generated/consumer_group_describe_request.h"
#include "protocol/generated/consumer_group_describe_response.h"
#include "protocol/generated/delete_groups_request.h"
#include "protocol/generated/delete_groups_response.h"
#include "protocol/generated/describe_groups_request.h"
#include "protocol/generated/describe_groups_response.h"
#include "protocol/generated/list_groups_request.h"
#include "protocol/generated/list_groups_response.h"
#include "protocol/generated/offset_commit_request.h"
#include "protocol/generated/offset_commit_response.h"
#include "protocol/generated/offset_fetch_request.h"
#include "protocol/generated/offset_fetch_response.h"

namespace skiff::console {
namespace {

using TopicPartition = std::pair<std::string, int32_t>;

struct Committed {
  int64_t offset = -1;
  std::string metadata;
};

// The group's committed offsets (every partition it has one for).
std::map<TopicPartition, Committed> committed_offsets(client::InProcessClient& kafka, const std::string& group) {
  protocol::OffsetFetchRequest req;
  auto& g = req.groups.emplace_back();
  g.group_id = group;
  g.topics = std::nullopt;  // all
  auto resp = kafka.call<protocol::OffsetFetchResponse>(req, 8);
  std::map<TopicPartition, Committed> out;
  for (const auto& rg : resp.groups) {
    client::throw_if_kafka_error(rg.error_code, "group " + group);
    for (const auto& t : rg.topics)
      for (const auto& p : t.partitions)
        if (p.error_code == 0 && p.committed_offset >= 0)
          out[{t.name, p.partition_index}] = {p.committed_offset, p.metadata.value_or("")};
  }
  return out;
}

std::map<TopicPartition, int64_t> end_offsets(client::InProcessClient& kafka,
                                              const std::map<TopicPartition, Committed>& at) {
  std::map<std::string, std::vector<int32_t>> parts;
  for (const auto& [tp, c] : at) parts[tp.first].push_back(tp.second);
  return list_offsets(kafka, parts, -1);
}

struct GroupSummary {
  std::string id, state, protocol_type, group_type;
};

std::vector<GroupSummary> all_groups(client::InProcessClient& kafka) {
  auto resp = kafka.call<protocol::ListGroupsResponse>(protocol::ListGroupsRequest{}, 5);
  client::throw_if_kafka_error(resp.error_code);
  std::vector<GroupSummary> out;
  for (const auto& g : resp.groups) out.push_back({g.group_id, g.group_state, g.protocol_type, g.group_type});
  return out;
}

// Members per group: one DescribeGroups for the classic groups, one
// ConsumerGroupDescribe for the KIP-848 ones, one ShareGroupDescribe for
// the share groups, one StreamsGroupDescribe for the streams groups.
std::map<std::string, int64_t> member_counts(client::InProcessClient& kafka, const std::vector<GroupSummary>& groups) {
  protocol::DescribeGroupsRequest classic;
  protocol::ConsumerGroupDescribeRequest consumer;
  std::vector<std::string> share, streams;
  for (const auto& g : groups) {
    if (g.group_type == "share")
      share.push_back(g.id);
    else if (g.group_type == "streams")
      streams.push_back(g.id);
    else
      (g.group_type == "consumer" ? consumer.group_ids : classic.groups).push_back(g.id);
  }
  std::map<std::string, int64_t> out = share_member_counts(kafka, share);
  out.merge(streams_member_counts(kafka, streams));
  if (!classic.groups.empty())
    for (const auto& d : kafka.call<protocol::DescribeGroupsResponse>(classic, 5).groups)
      if (d.error_code == 0) out[d.group_id] = static_cast<int64_t>(d.members.size());
  if (!consumer.group_ids.empty())
    for (const auto& d : kafka.call<protocol::ConsumerGroupDescribeResponse>(consumer, 0).groups)
      if (d.error_code == 0) out[d.group_id] = static_cast<int64_t>(d.members.size());
  return out;
}

GroupSummary find_group(client::InProcessClient& kafka, const std::string& id) {
  for (auto& g : all_groups(kafka))
    if (g.id == id) return g;
  throw client::ClientError(404, "GROUP_ID_NOT_FOUND", 69, "no group " + id);
}

void write_assignment(JsonWriter& w, const protocol::NamedPartitions& owned) {
  w.key("assignments").begin_array();
  for (const auto& [topic, partitions] : owned)
    for (int32_t p : partitions) w.begin_object().field("topic", topic).field("partition", p).end_object();
  w.end_array();
}

// Members and the chosen protocol, of a classic or a KIP-848 group.
void write_members(JsonWriter& w, client::InProcessClient& kafka, const GroupSummary& g) {
  if (g.group_type == "consumer") {
    protocol::ConsumerGroupDescribeRequest req;
    req.group_ids.push_back(g.id);
    auto resp = kafka.call<protocol::ConsumerGroupDescribeResponse>(req, 0);
    w.field("protocol", resp.groups.empty() ? std::string() : resp.groups[0].assignor_name);
    w.key("members").begin_array();
    for (const auto& d : resp.groups) {
      client::throw_if_kafka_error(d.error_code, d.error_message);
      for (const auto& m : d.members) {
        w.begin_object().field("member_id", m.member_id).field("client_id", m.client_id).field("host", m.client_host);
        protocol::NamedPartitions owned;
        for (const auto& tp : m.assignment.topic_partitions)
          owned[tp.topic_name].insert(tp.partitions.begin(), tp.partitions.end());
        write_assignment(w, owned);
        w.end_object();
      }
    }
    w.end_array();
    return;
  }
  protocol::DescribeGroupsRequest req;
  req.groups.push_back(g.id);
  auto resp = kafka.call<protocol::DescribeGroupsResponse>(req, 5);
  w.field("protocol", resp.groups.empty() ? std::string() : resp.groups[0].protocol_data);
  w.key("members").begin_array();
  for (const auto& d : resp.groups) {
    client::throw_if_kafka_error(d.error_code, d.error_message);
    for (const auto& m : d.members) {
      w.begin_object().field("member_id", m.member_id).field("client_id", m.client_id).field("host", m.client_host);
      auto owned = d.protocol_type == "consumer" ? protocol::decode_assignment(m.member_assignment) : std::nullopt;
      write_assignment(w, owned.value_or(protocol::NamedPartitions{}));
      w.end_object();
    }
  }
  w.end_array();
}

// What a reset moves: the partitions the group has offsets for (of `topic`
// only, if given; every partition of `topic` when it has none there); of a
// streams group, only those of its input topics (`inputs`).
std::map<std::string, std::vector<int32_t>> reset_partitions(ConsoleCall& call, const std::string& group,
                                                             const std::optional<std::set<std::string>>& inputs) {
  const JsonValue* topic = call.body.find("topic");
  const bool one_topic = topic && topic->kind == JsonValue::Kind::kString;
  if (one_topic && inputs && !inputs->contains(topic->string))
    bad_request("topic " + topic->string + " is not an input topic of streams group " + group);
  std::map<std::string, std::vector<int32_t>> parts;
  for (const auto& [tp, c] : committed_offsets(call.kafka, group))
    if ((!one_topic || topic->string == tp.first) && (!inputs || inputs->contains(tp.first)))
      parts[tp.first].push_back(tp.second);
  if (one_topic && parts.empty()) {
    const std::vector<std::string> only{topic->string};
    for (const auto& [name, count] : topic_partitions(call.kafka, &only))
      for (int32_t p = 0; p < count; ++p) parts[name].push_back(p);
  }
  return parts;
}

// Where each partition goes: earliest, latest, or the first offset at or
// after a time (the end where there is none, as kafka-consumer-groups does).
std::map<TopicPartition, int64_t> reset_targets(ConsoleCall& call,
                                                const std::map<std::string, std::vector<int32_t>>& parts) {
  const std::string to = call.required_string("to");
  int64_t timestamp = to == "earliest" ? -2 : -1;
  if (to == "timestamp") {
    timestamp = call.body_int("timestamp", -3);
    if (timestamp < 0) bad_request("'timestamp' (ms since the epoch) is needed with to=timestamp");
  } else if (to != "earliest" && to != "latest") {
    bad_request("'to' is earliest, latest or timestamp");
  }
  auto targets = list_offsets(call.kafka, parts, timestamp);
  if (timestamp >= 0) {
    const auto ends = list_offsets(call.kafka, parts, -1);
    for (auto& [tp, offset] : targets)
      if (offset < 0) offset = ends.at(tp);
  }
  return targets;
}

// A share group in the list: its lag is the sum of DescribeShareGroupOffsets'.
void write_share_summary(JsonWriter& w, client::InProcessClient& kafka, const GroupSummary& g,
                         const std::map<std::string, int64_t>& members) {
  const auto offsets = share_offsets(kafka, g.id);
  int64_t lag = 0;
  bool any = false;
  for (const auto& o : offsets) {
    if (o.lag < 0) continue;
    lag += o.lag;
    any = true;
  }
  w.begin_object().field("group_id", g.id).field("state", g.state).field("protocol_type", g.protocol_type);
  w.field("group_type", g.group_type);
  const auto m = members.find(g.id);
  w.field("members", m == members.end() ? int64_t{0} : m->second);
  if (any)
    w.field("lag", lag);
  else
    w.key("lag").null();
  w.end_object();
}

}  // namespace

std::string list_groups(ConsoleCall& call) {
  JsonWriter w;
  w.begin_object().key("groups").begin_array();
  const auto groups = all_groups(call.kafka);
  const auto members = member_counts(call.kafka, groups);
  for (const auto& g : groups) {
    if (g.group_type == "share") {
      write_share_summary(w, call.kafka, g, members);
      continue;
    }
    const auto committed = committed_offsets(call.kafka, g.id);
    const auto ends = end_offsets(call.kafka, committed);
    int64_t lag = 0;
    for (const auto& [tp, c] : committed)
      if (auto e = ends.find(tp); e != ends.end() && e->second >= c.offset) lag += e->second - c.offset;
    w.begin_object().field("group_id", g.id).field("state", g.state).field("protocol_type", g.protocol_type);
    w.field("group_type", g.group_type.empty() ? "classic" : g.group_type);
    const auto m = members.find(g.id);
    w.field("members", m == members.end() ? int64_t{0} : m->second);
    if (committed.empty())
      w.key("lag").null();
    else
      w.field("lag", lag);
    w.end_object();
  }
  return w.end_array().end_object().take();
}

std::string describe_group(ConsoleCall& call) {
  const auto g = find_group(call.kafka, call.required_query("id"));
  JsonWriter w;
  w.begin_object().field("group_id", g.id).field("state", g.state).field("protocol_type", g.protocol_type);
  w.field("group_type", g.group_type.empty() ? "classic" : g.group_type);
  if (g.group_type == "share") {
    write_share_group(w, call, g.id);
    return w.end_object().take();
  }
  if (g.group_type == "streams")
    write_streams_group(w, call, g.id);
  else
    write_members(w, call.kafka, g);
  const auto committed = committed_offsets(call.kafka, g.id);
  const auto ends = end_offsets(call.kafka, committed);
  w.key("offsets").begin_array();
  for (const auto& [tp, c] : committed) {
    const auto e = ends.find(tp);
    const int64_t end = e == ends.end() ? -1 : e->second;
    w.begin_object().field("topic", tp.first).field("partition", tp.second).field("committed", c.offset);
    w.field("high_watermark", end).field("lag", end >= c.offset ? end - c.offset : int64_t{0});
    w.field("metadata", c.metadata).end_object();
  }
  return w.end_array().end_object().take();
}

std::string reset_group_offsets(ConsoleCall& call) {
  const auto g = find_group(call.kafka, call.required_string("id"));
  if (g.group_type == "share")
    bad_request("group " + g.id + " is a share group: reset its offsets with kafka-share-groups --reset-offsets");
  if (g.state != "Empty")
    throw client::ClientError(409, "NON_EMPTY_GROUP", 68,
                              "group " + g.id + " is " + g.state + ": stop its consumers first" +
                                  (g.group_type == "streams" ? " (or use kafka-streams-groups --reset-offsets)" : ""));
  std::optional<std::set<std::string>> inputs;
  if (g.group_type == "streams") inputs = streams_input_topics(call.kafka, g.id);
  const auto parts = reset_partitions(call, g.id, inputs);
  const auto targets = reset_targets(call, parts);
  protocol::OffsetCommitRequest req;
  req.group_id = g.id;
  req.generation_id_or_member_epoch = -1;
  for (const auto& [name, partitions] : parts) {
    auto& t = req.topics.emplace_back();
    t.name = name;
    for (int32_t p : partitions) {
      auto& cp = t.partitions.emplace_back();
      cp.partition_index = p;
      cp.committed_offset = targets.at({name, p});
    }
  }
  auto resp = call.kafka.call<protocol::OffsetCommitResponse>(req, 8);
  JsonWriter w;
  w.begin_object().key("offsets").begin_array();
  for (const auto& t : resp.topics) {
    for (const auto& p : t.partitions) {
      client::throw_if_kafka_error(p.error_code, "partition " + t.name + "-" + std::to_string(p.partition_index));
      w.begin_object().field("topic", t.name).field("partition", p.partition_index);
      w.field("offset", targets.at({t.name, p.partition_index})).end_object();
    }
  }
  return w.end_array().end_object().take();
}

std::string delete_group(ConsoleCall& call) {
  const std::string id = call.required_string("id");
  protocol::DeleteGroupsRequest req;
  req.groups_names.push_back(id);
  auto resp = call.kafka.call<protocol::DeleteGroupsResponse>(req, 2);
  for (const auto& r : resp.results) client::throw_if_kafka_error(r.error_code, r.error_message);
  return JsonWriter().begin_object().field("group_id", id).end_object().take();
}

}  // namespace skiff::console
