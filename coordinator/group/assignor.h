// The server-side assignors of KIP-848's consumer group protocol (Kafka's
// ConsumerGroupPartitionAssignor): from the members' subscriptions and their
// current target assignment, and the subscribed topics' metadata, compute the
// next target assignment of every member. The coordinator runs the assignor
// the member asked for (ServerAssignor) among those named in
// `group.consumer.assignors`, the first of that list being the default
// (Kafka's: uniform, range).
//
// The vocabulary (Assignment, TopicMetadata, ...) is shared with the
// reconciliation state machine (consumer_member_reconciler.h). Topics are
// named by id: a topic deleted and created again under the same name is a
// different topic, as in Kafka.
//
// Threads: assignors are stateless; assign() is a pure function, callable
// from any thread (the coordinator calls it under the group's lock).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "common/uuid.h"

namespace skiff::group::consumer {

// Partitions per topic id.
using Assignment = std::map<Uuid, std::set<int32_t>>;

struct TopicMetadata {
  Uuid id;
  std::string name;
  int32_t partitions = 0;
};

struct AssignorMember {
  std::string member_id;
  std::optional<std::string> rack;         // carried for rack-aware assignors; uniform and range ignore it
  std::set<Uuid> subscribed;               // resolved topic ids (topic names and regexes)
  Assignment current;                      // the member's current target assignment
  std::optional<std::string> instance_id;  // static membership: range sorts by it first
};

struct AssignmentSpec {
  std::vector<AssignorMember> members;
  std::map<Uuid, TopicMetadata> topics;  // subscribed topics that exist; others are ignored
};

// member id -> its new target assignment (every member of the spec appears).
using TargetAssignment = std::map<std::string, Assignment>;

class Assignor {
 public:
  virtual ~Assignor() = default;
  virtual std::string_view name() const = 0;
  virtual TargetAssignment assign(const AssignmentSpec& spec) const = 0;
};

// "uniform" or "range" (Kafka's names); nullptr for any other name.
std::unique_ptr<Assignor> make_assignor(std::string_view name);

// Helpers shared by the assignors and the reconciler.
size_t partition_count(const Assignment& a);
bool contains(const Assignment& a, const Uuid& topic, int32_t partition);

}  // namespace skiff::group::consumer
