// KIP-1071's streams groups: Kafka 4.4's group.streams.* broker keys
// (GroupCoordinatorConfig), with Kafka's names, defaults and ConfigDef
// bounds. The session timeout, heartbeat interval, group size, standby
// replicas and initial rebalance delay drive Skiff's streams groups (through
// the group coordinator's GroupConfig, server/broker_components.cc), as do
// the task offset interval and acceptable recovery lag (sent to members) and
// the rack-aware assignment tags (MISSING_CLIENT_TAGS); the others name what
// Kafka 4.4's sticky task assignor does not do either (warm-up tasks) or
// what Skiff does otherwise (batched assignment, Java plugins): accepted and
// checked as Kafka checks them, so a Kafka config file starts, and not used.
// group.streams.assignment.interval.ms and group.streams.assignor.offload.enable
// are Kafka's dynamic keys (config/kafka_dynamic_keys.cc).
#include <fmt/format.h>

#include <algorithm>
#include <set>
#include <stdexcept>

#include "config/config_def.h"
#include "config/string_util.h"

namespace skiff::config {
namespace {

constexpr std::string_view kNotUsed = " Accepted; Skiff's sticky task assignor does not use it.";

template <typename T>
ConfigKeyDef int_key(std::string name, int64_t def, int64_t lo, std::string doc, T BrokerConfig::*member) {
  const bool is_long = sizeof(T) == 8;
  const int64_t hi = is_long ? kLongMax : kIntMax;
  return ConfigKeyDef{
      std::move(name),
      is_long ? ConfigType::kLong : ConfigType::kInt,
      std::to_string(def),
      std::move(doc),
      [=](BrokerConfig& c, const std::string& v) { c.*member = static_cast<T>(parse_integer(v, lo, hi)); },
      fmt::format("an integer in [{}, {}]", lo, hi)};
}

// group.streams.assignors: Kafka 4.4's one built-in task assignor, `sticky`
// (also by its class name); Skiff loads no Java assignor classes.
ConfigKeyDef assignors_key() {
  return ConfigKeyDef{
      "group.streams.assignors",
      ConfigType::kList,
      "sticky",
      "The server-side task assignors of streams groups: sticky, Kafka's built-in one.",
      [](BrokerConfig&, const std::string& v) {
        size_t n = 0;
        for (const auto& item : split_list(v)) {
          if (item != "sticky" && item != "org.apache.kafka.coordinator.group.streams.assignor.StickyTaskAssignor")
            throw std::invalid_argument(fmt::format("unknown task assignor '{}' (Skiff's is sticky)", item));
          ++n;
        }
        if (n == 0) throw std::invalid_argument("at least one assignor is needed");
        if (n > 1) throw std::invalid_argument("the sticky assignor is named twice");
      },
      "sticky"};
}

// Kafka's ValidList.anyNonDuplicateValues(true, false) and its duplicate check.
ConfigKeyDef rack_tags_key() {
  return ConfigKeyDef{
      "group.streams.rack.aware.assignment.tags",
      ConfigType::kList,
      "",
      "List of client tag keys used to distribute standby replicas across Kafka Streams instances. Members "
      "without one of them hear MISSING_CLIENT_TAGS, as from Kafka 4.4, whose sticky assignor does not use them "
      "either.",
      [](BrokerConfig& c, const std::string& v) {
        auto tags = split_list(v);
        if (std::set<std::string>(tags.begin(), tags.end()).size() != tags.size())
          throw std::invalid_argument("group.streams.rack.aware.assignment.tags must not contain duplicate tag keys.");
        c.group_streams_rack_aware_assignment_tags = std::move(tags);
      },
      "a list of distinct tag keys"};
}

void add_used_keys(std::vector<ConfigKeyDef>& d) {
  d.push_back(int_key("group.streams.session.timeout.ms", 45000, 1,
                      "The timeout to detect client failures when using the streams group protocol.",
                      &BrokerConfig::group_streams_session_timeout_ms));
  d.push_back(int_key("group.streams.min.session.timeout.ms", 45000, 1,
                      "The minimum session timeout a streams group (streams.session.timeout.ms) may set.",
                      &BrokerConfig::group_streams_min_session_timeout_ms));
  d.push_back(int_key("group.streams.max.session.timeout.ms", 60000, 1,
                      "The maximum session timeout a streams group (streams.session.timeout.ms) may set.",
                      &BrokerConfig::group_streams_max_session_timeout_ms));
  d.push_back(int_key("group.streams.heartbeat.interval.ms", 5000, 1,
                      "The heartbeat interval given to the members of a streams group.",
                      &BrokerConfig::group_streams_heartbeat_interval_ms));
  d.push_back(int_key("group.streams.min.heartbeat.interval.ms", 5000, 1,
                      "The minimum heartbeat interval a streams group (streams.heartbeat.interval.ms) may set.",
                      &BrokerConfig::group_streams_min_heartbeat_interval_ms));
  d.push_back(int_key("group.streams.max.heartbeat.interval.ms", 15000, 1,
                      "The maximum heartbeat interval a streams group (streams.heartbeat.interval.ms) may set.",
                      &BrokerConfig::group_streams_max_heartbeat_interval_ms));
  d.push_back(int_key("group.streams.max.size", kIntMax, 1,
                      "The maximum number of streams clients that a single streams group can accommodate.",
                      &BrokerConfig::group_streams_max_size));
  d.push_back(int_key("group.streams.num.standby.replicas", 0, 0, "The number of standby replicas for each task.",
                      &BrokerConfig::group_streams_num_standby_replicas));
  d.push_back(int_key("group.streams.max.standby.replicas", 2, 0,
                      "The most standby replicas a streams group (streams.num.standby.replicas) may set.",
                      &BrokerConfig::group_streams_max_standby_replicas));
  // 0 as Skiff's group.initial.rebalance.delay.ms (Kafka's default is 3000):
  // a single-node broker's first streams application starts at once.
  d.push_back(int_key("group.streams.initial.rebalance.delay.ms", 0, 0,
                      "How long the coordinator waits for more streams clients to join a new group before its first "
                      "assignment (members get ASSIGNMENT_DELAYED meanwhile; Kafka's default is 3000).",
                      &BrokerConfig::group_streams_initial_rebalance_delay_ms));
}

void add_unused_keys(std::vector<ConfigKeyDef>& d) {
  const std::string not_used(kNotUsed);
  d.push_back(int_key("group.streams.min.assignment.interval.ms", 0, 0,
                      "The minimum interval between assignment updates for a streams group." + not_used,
                      &BrokerConfig::group_streams_min_assignment_interval_ms));
  d.push_back(int_key("group.streams.max.assignment.interval.ms", 15000, 0,
                      "The maximum interval between assignment updates for a streams group." + not_used,
                      &BrokerConfig::group_streams_max_assignment_interval_ms));
  d.push_back(int_key("group.streams.task.offset.interval.ms", 60000, 1,
                      "How often members report their warm-up tasks' changelog offsets (the heartbeat's "
                      "TaskOffsetIntervalMs).",
                      &BrokerConfig::group_streams_task_offset_interval_ms));
  d.push_back(int_key("group.streams.min.task.offset.interval.ms", 15000, 1,
                      "The minimum of streams.task.offset.interval.ms.",
                      &BrokerConfig::group_streams_min_task_offset_interval_ms));
  d.push_back(int_key("group.streams.num.warmup.replicas", 2, 0,
                      "The maximum number of warmup task replicas." + not_used,
                      &BrokerConfig::group_streams_num_warmup_replicas));
  d.push_back(int_key("group.streams.max.warmup.replicas", 20, 0,
                      "The maximum of streams.num.warmup.replicas." + not_used,
                      &BrokerConfig::group_streams_max_warmup_replicas));
  d.push_back(int_key("group.streams.acceptable.recovery.lag", 10000, 0,
                      "The lag under which a client counts as caught up for an active task (the heartbeat's "
                      "AcceptableRecoveryLag).",
                      &BrokerConfig::group_streams_acceptable_recovery_lag));
  d.push_back(rack_tags_key());
  d.push_back({"group.streams.topology.description.plugin.class", ConfigType::kString, "",
               "Kafka's Java plugin for KIP-1331 topology descriptions. Accepted; Skiff keeps the descriptions "
               "itself and loads no plugin.",
               [](BrokerConfig& c, const std::string& v) {
                 c.group_streams_topology_description_plugin_class = std::string(trim(v));
               },
               "a class name (not loaded)"});
}

}  // namespace

void add_streams_group_keys(std::vector<ConfigKeyDef>& defs) {
  add_used_keys(defs);
  defs.push_back(assignors_key());
  add_unused_keys(defs);
}

}  // namespace skiff::config
