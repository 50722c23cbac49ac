#include "api/handlers/streams_group_support.h"

#include <algorithm>

#include "api/api_log.h"
#include "api/handlers/create_topics_handler.h"
#include "api/topics.h"
#include "common/log_escape.h"
#include "log/log_manager.h"
#include "protocol/error_names.h"

namespace skiff::api::streams_group {

std::vector<std::string> required_topics(const protocol::StreamsGroupHeartbeatRequest::Topology& topology) {
  std::vector<std::string> out;
  auto add = [&out](const std::string& name) {
    if (std::find(out.begin(), out.end(), name) == out.end()) out.push_back(name);
  };
  for (const auto& s : topology.subtopologies) {
    for (const auto& t : s.source_topics) add(t);
    for (const auto& t : s.repartition_sink_topics) add(t);
    for (const auto& t : s.repartition_source_topics) add(t.name);
    for (const auto& t : s.state_changelog_topics) add(t.name);
  }
  return out;
}

std::string joined(const std::vector<std::string>& names, const char* sep) {
  std::string out;
  for (const auto& n : names) {
    if (!out.empty()) out += sep;
    out += n;
  }
  return out;
}

std::optional<TopologyRefusal> internal_or_invalid_topics(const std::vector<std::string>& topics) {
  std::vector<std::string> internal, invalid;
  for (const auto& t : topics) {
    if (is_internal_topic(t)) internal.push_back(t);
    if (!storage::LogManager::valid_topic_name(t)) invalid.push_back(t);
  }
  if (!internal.empty())
    return TopologyRefusal{ErrorCode::kStreamsInvalidTopology, "Use of Kafka internal topics " + joined(internal, ",") +
                                                                   " in a Kafka Streams topology is prohibited."};
  if (!invalid.empty())
    return TopologyRefusal{ErrorCode::kStreamsInvalidTopology,
                           "Topic names " + joined(invalid, ",") + " are not valid topic names."};
  return std::nullopt;
}

void note_missing_internal_topics(protocol::StreamsGroupHeartbeatResponse& response, const std::string& new_detail,
                                  const std::string& detail_suffix) {
  auto& statuses = response.status ? *response.status : response.status.emplace();
  for (auto& s : statuses) {
    if (s.status_code != kMissingInternalTopicsStatus) continue;
    s.status_detail += "; " + detail_suffix;
    return;
  }
  auto& s = statuses.emplace_back();
  s.status_code = kMissingInternalTopicsStatus;
  s.status_detail = new_detail;
}

void note_create_denied(protocol::StreamsGroupHeartbeatResponse& response, const std::vector<std::string>& topics) {
  if (topics.empty()) return;
  const auto text = "Unauthorized to CREATE on topics " + joined(topics, ", ") + ".";
  note_missing_internal_topics(response, text, text);
}

void note_creation_failures(protocol::StreamsGroupHeartbeatResponse& response,
                            const std::vector<std::pair<std::string, std::string>>& failures) {
  if (failures.empty() || !response.status) return;
  const bool has_status = std::any_of(response.status->begin(), response.status->end(),
                                      [](const auto& s) { return s.status_code == kMissingInternalTopicsStatus; });
  if (!has_status) return;  // Kafka adds the failures only to a status the coordinator gave
  constexpr size_t kMaxNamed = 3;
  std::vector<std::string> named;
  for (size_t i = 0; i < failures.size() && i < kMaxNamed; ++i)
    named.push_back(failures[i].first + " (" + failures[i].second + ")");
  auto text = joined(named, ", ");
  if (failures.size() > kMaxNamed) text += " and " + std::to_string(failures.size() - kMaxNamed) + " more";
  note_missing_internal_topics(response, {}, "Creation failed: " + text + ".");
}

namespace {

protocol::CreateTopicsRequest::CreatableTopic creatable(const group::streams::InternalTopicToCreate& t) {
  protocol::CreateTopicsRequest::CreatableTopic c;
  c.name = t.name;
  c.num_partitions = t.partitions;
  c.replication_factor = t.replication_factor;
  for (const auto& [k, v] : t.configs) {
    auto& kv = c.configs.emplace_back();
    kv.name = k;
    kv.value = v;
  }
  return c;
}

// Creates each topic through CreateTopics' path; the failures, as (topic,
// Kafka's message), an existing topic being none.
std::vector<std::pair<std::string, std::string>> create_all(
    BrokerServices& services, const std::string& group_id,
    const std::vector<group::streams::InternalTopicToCreate>& topics) {
  std::vector<std::pair<std::string, std::string>> failed;
  for (const auto& t : topics) {
    constexpr int16_t kCreateTopicsVersion = 7;
    auto r = create_topic_as_requested(services, creatable(t), false, kCreateTopicsVersion);
    if (r.error_code == code(ErrorCode::kNone)) {
      api_log().info("streams group {}: created internal topic {} ({} partition(s))", escaped(group_id),
                     escaped(t.name), r.num_partitions);
    } else if (r.error_code != code(ErrorCode::kTopicAlreadyExists)) {
      auto why = r.error_message.value_or("");
      if (why.empty()) why = std::string(protocol::error_name(r.error_code));
      api_log().warn("streams group {}: cannot create internal topic {}: {}", escaped(group_id), escaped(t.name),
                     escaped(why));
      failed.emplace_back(t.name, std::move(why));
    }
  }
  return failed;
}

}  // namespace

bool create_internal_topics(BrokerServices& services, const std::function<bool(const std::string&)>& may_create,
                            const std::string& group_id, group::StreamsHeartbeatResult& result) {
  std::vector<std::string> denied;
  for (const auto& t : result.to_create)
    if (!may_create(t.name)) denied.push_back(t.name);
  if (!denied.empty()) {
    note_create_denied(result.response, denied);
    return false;
  }
  const auto failures = create_all(services, group_id, result.to_create);
  note_creation_failures(result.response, failures);
  return failures.empty();
}

}  // namespace skiff::api::streams_group
