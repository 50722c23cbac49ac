#include "coordinator/group/streams/streams_topology.h"

#include "coordinator/group/streams/generated/streams_group_topology_value.h"

namespace skiff::group::streams {

std::set<std::string> required_topics(const Topology& topology) {
  std::set<std::string> out;
  for (const auto& [id, sub] : topology.subtopologies) {
    out.insert(sub.source_topics.begin(), sub.source_topics.end());
    for (const auto& t : sub.repartition_source_topics) out.insert(t.name);
    for (const auto& t : sub.state_changelog_topics) out.insert(t.name);
  }
  return out;
}

namespace {

using Value = protocol::StreamsGroupTopologyValue;

TopicInfo topic_from_record(const Value::TopicInfo& r) {
  TopicInfo t{r.name, r.partitions, r.replication_factor, {}};
  for (const auto& c : r.topic_configs) t.configs[c.key] = c.value;
  return t;
}

Value::TopicInfo topic_to_record(const TopicInfo& t) {
  Value::TopicInfo r;
  r.name = t.name;
  r.partitions = t.partitions;
  r.replication_factor = t.replication_factor;
  for (const auto& [k, v] : t.configs) {
    Value::TopicConfig c;
    c.key = k;
    c.value = v;
    r.topic_configs.push_back(std::move(c));
  }
  return r;
}

Subtopology subtopology_from_record(const Value::Subtopology& r) {
  Subtopology s{r.subtopology_id, r.source_topics, r.repartition_sink_topics, {}, {}, {}};
  for (const auto& t : r.state_changelog_topics) s.state_changelog_topics.push_back(topic_from_record(t));
  for (const auto& t : r.repartition_source_topics) s.repartition_source_topics.push_back(topic_from_record(t));
  for (const auto& g : r.copartition_groups)
    s.copartition_groups.push_back(CopartitionGroup{g.source_topics, g.repartition_source_topics});
  return s;
}

Value::Subtopology subtopology_to_record(const Subtopology& s) {
  Value::Subtopology r;
  r.subtopology_id = s.id;
  r.source_topics = s.source_topics;
  r.repartition_sink_topics = s.repartition_sink_topics;
  for (const auto& t : s.state_changelog_topics) r.state_changelog_topics.push_back(topic_to_record(t));
  for (const auto& t : s.repartition_source_topics) r.repartition_source_topics.push_back(topic_to_record(t));
  for (const auto& g : s.copartition_groups) {
    Value::CopartitionGroup rg;
    rg.source_topics = g.source_topics;
    rg.repartition_source_topics = g.repartition_source_topics;
    r.copartition_groups.push_back(std::move(rg));
  }
  return r;
}

}  // namespace

Topology from_record(const Value& value) {
  Topology t;
  t.epoch = value.epoch;
  for (const auto& s : value.subtopologies) t.subtopologies[s.subtopology_id] = subtopology_from_record(s);
  return t;
}

Value to_record(const Topology& topology) {
  Value v;
  v.epoch = topology.epoch;
  for (const auto& [id, s] : topology.subtopologies) v.subtopologies.push_back(subtopology_to_record(s));
  return v;
}

}  // namespace skiff::group::streams
