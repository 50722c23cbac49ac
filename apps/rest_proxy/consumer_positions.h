// ConsumerPositions: a v2 consumer instance's assignment and its position
// on each assigned partition, as a Kafka consumer keeps them: a partition
// newly assigned has no position until one is found (its committed offset,
// else auto.offset.reset); a seek sets one; the records handed out advance
// it; an assignment that keeps a partition keeps its position; what is
// consumed (commit "all") is the position of every assigned partition that
// has one.
// Threads: none of its own; the instance guards it (one HTTP call at a time).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace skiff::restproxy {

using TopicPartition = std::pair<std::string, int32_t>;

class ConsumerPositions {
 public:
  // The new assignment; positions of partitions kept stay.
  void assign(const std::set<TopicPartition>& partitions);
  const std::set<TopicPartition>& assigned() const { return assigned_; }
  bool is_assigned(const TopicPartition& tp) const { return assigned_.count(tp) != 0; }

  // False (nothing changes) when `tp` is not assigned.
  bool seek(const TopicPartition& tp, int64_t offset);
  // Forgets the position of `tp` (an out-of-range fetch: found again by the reset policy).
  void reset(const TopicPartition& tp) { positions_.erase(tp); }
  // The next offset to read, after the records handed out.
  void advance(const TopicPartition& tp, int64_t next);

  std::optional<int64_t> position(const TopicPartition& tp) const;
  // Assigned partitions with no position yet, in order.
  std::vector<TopicPartition> missing() const;
  // Every assigned partition's position (what "commit all consumed" commits).
  std::map<TopicPartition, int64_t> consumed() const;

 private:
  std::set<TopicPartition> assigned_;
  std::map<TopicPartition, int64_t> positions_;
};

}  // namespace skiff::restproxy
