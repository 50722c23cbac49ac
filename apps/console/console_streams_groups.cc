// Streams groups (KIP-1071) in the console's group endpoints: members and
// their tasks, the group and assignment epochs, the topology (subtopologies
// with their source, repartition and changelog topics) and the
// application's topology description (KIP-1331, sent with API 93), all from
// one StreamsGroupDescribe v1 with IncludeTopologyDescription. Committed
// offsets and lag are the consumer groups' (console_groups.cc): a Streams
// application commits with OffsetCommit.
#include <set>

#include "apps/console/console_endpoints.h"
#include "protocol/generated/streams_group_describe_request.h"
#include "protocol/generated/streams_group_describe_response.h"

namespace skiff::console {
namespace {

using Described = protocol::StreamsGroupDescribeResponse::DescribedGroup;

protocol::StreamsGroupDescribeResponse describe_streams(client::InProcessClient& kafka, std::vector<std::string> ids,
                                                        bool with_description) {
  protocol::StreamsGroupDescribeRequest req;
  req.group_ids = std::move(ids);
  req.include_topology_description = with_description;
  return kafka.call<protocol::StreamsGroupDescribeResponse>(req, 1);
}

Described describe_one(client::InProcessClient& kafka, const std::string& group) {
  auto resp = describe_streams(kafka, {group}, true);
  if (resp.groups.empty()) throw client::ClientError(500, "UNKNOWN_SERVER_ERROR", -1, "no answer for group " + group);
  auto& d = resp.groups[0];
  client::throw_if_kafka_error(d.error_code, d.error_message.value_or("group " + group));
  return std::move(d);
}

void write_strings(JsonWriter& w, const char* key, const std::vector<std::string>& values) {
  w.key(key).begin_array();
  for (const auto& v : values) w.value(v);
  w.end_array();
}

// Tasks as kafka-streams-groups --describe --members writes them: "0_1"
// is subtopology 0, partition 1.
void write_tasks(JsonWriter& w, const char* key,
                 const std::vector<protocol::StreamsGroupDescribeResponse::TaskIds>& tasks) {
  w.key(key).begin_array();
  for (const auto& t : tasks)
    for (int32_t p : t.partitions) w.value(t.subtopology_id + "_" + std::to_string(p));
  w.end_array();
}

void write_members(JsonWriter& w, const Described& d) {
  w.key("members").begin_array();
  for (const auto& m : d.members) {
    w.begin_object().field("member_id", m.member_id).field("member_epoch", int64_t{m.member_epoch});
    w.field("process_id", m.process_id).field("client_id", m.client_id).field("host", m.client_host);
    w.key("instance_id").value(m.instance_id);
    if (m.user_endpoint)
      w.field("user_endpoint", m.user_endpoint->host + ":" + std::to_string(m.user_endpoint->port));
    else
      w.key("user_endpoint").null();
    write_tasks(w, "active_tasks", m.assignment.active_tasks);
    write_tasks(w, "standby_tasks", m.assignment.standby_tasks);
    write_tasks(w, "warmup_tasks", m.assignment.warmup_tasks);
    w.end_object();
  }
  w.end_array();
}

void write_topic_infos(JsonWriter& w, const char* key,
                       const std::vector<protocol::StreamsGroupDescribeResponse::TopicInfo>& topics) {
  w.key(key).begin_array();
  for (const auto& t : topics) w.value(t.name);
  w.end_array();
}

// The topology as the group's coordinator holds it (null before the first
// member has sent one).
void write_topology(JsonWriter& w, const Described& d) {
  if (!d.topology) {
    w.key("topology").null();
    return;
  }
  static const std::vector<protocol::StreamsGroupDescribeResponse::Subtopology> kNoSubtopologies;
  w.key("topology").begin_object().field("epoch", int64_t{d.topology->epoch}).key("subtopologies").begin_array();
  for (const auto& s : d.topology->subtopologies ? *d.topology->subtopologies : kNoSubtopologies) {
    w.begin_object().field("subtopology_id", s.subtopology_id);
    write_strings(w, "source_topics", s.source_topics);
    write_topic_infos(w, "repartition_source_topics", s.repartition_source_topics);
    write_strings(w, "repartition_sink_topics", s.repartition_sink_topics);
    write_topic_infos(w, "changelog_topics", s.state_changelog_topics);
    w.end_object();
  }
  w.end_array().end_object();
}

const char* node_type(int8_t type) {
  switch (type) {
    case 1:
      return "SOURCE";
    case 2:
      return "PROCESSOR";
    case 3:
      return "SINK";
    default:
      return "UNKNOWN";
  }
}

void write_node(JsonWriter& w, const protocol::StreamsGroupDescribeResponse::TopologyDescriptionNode& n) {
  w.begin_object().field("name", n.name).field("type", node_type(n.node_type));
  write_strings(w, "source_topics", n.source_topics);
  w.key("sink_topic").value(n.sink_topic);
  write_strings(w, "stores", n.stores);
  write_strings(w, "successors", n.successors);
  w.end_object();
}

// The processing graph the application described (KIP-1331): status
// "AVAILABLE" with its nodes, or "NOT_STORED" (the application has not sent
// it) or another status's name, with null.
void write_description(JsonWriter& w, const Described& d) {
  const int8_t status = d.topology_description_status;
  w.field("topology_description_status", status == 3   ? "AVAILABLE"
                                         : status == 1 ? "NOT_STORED"
                                                       : "STATUS_" + std::to_string(status));
  if (status != 3 || !d.topology_description) {
    w.key("topology_description").null();
    return;
  }
  w.key("topology_description").begin_object().key("subtopologies").begin_array();
  for (const auto& s : d.topology_description->subtopologies) {
    w.begin_object().field("subtopology_id", s.subtopology_id).key("nodes").begin_array();
    for (const auto& n : s.nodes) write_node(w, n);
    w.end_array().end_object();
  }
  w.end_array().key("global_stores").begin_array();
  for (const auto& g : d.topology_description->global_stores) {
    w.begin_object().key("source");
    write_node(w, g.source);
    w.key("processor");
    write_node(w, g.processor);
    w.end_object();
  }
  w.end_array().end_object();
}

}  // namespace

std::map<std::string, int64_t> streams_member_counts(client::InProcessClient& kafka,
                                                     const std::vector<std::string>& ids) {
  std::map<std::string, int64_t> out;
  if (ids.empty()) return out;
  for (const auto& d : describe_streams(kafka, ids, false).groups)
    if (d.error_code == 0) out[d.group_id] = static_cast<int64_t>(d.members.size());
  return out;
}

std::set<std::string> streams_input_topics(client::InProcessClient& kafka, const std::string& group) {
  std::set<std::string> out;
  const auto d = describe_one(kafka, group);
  if (d.topology && d.topology->subtopologies)
    for (const auto& s : *d.topology->subtopologies) out.insert(s.source_topics.begin(), s.source_topics.end());
  return out;
}

void write_streams_group(JsonWriter& w, ConsoleCall& call, const std::string& group) {
  const auto d = describe_one(call.kafka, group);
  w.field("protocol", d.assignor_name.value_or(""));
  w.field("group_epoch", int64_t{d.group_epoch}).field("assignment_epoch", int64_t{d.assignment_epoch});
  write_members(w, d);
  write_topology(w, d);
  write_description(w, d);
}

}  // namespace skiff::console
