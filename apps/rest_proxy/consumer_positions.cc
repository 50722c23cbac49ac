#include "apps/rest_proxy/consumer_positions.h"

namespace skiff::restproxy {

void ConsumerPositions::assign(const std::set<TopicPartition>& partitions) {
  assigned_ = partitions;
  for (auto it = positions_.begin(); it != positions_.end();) {
    it = assigned_.count(it->first) != 0 ? std::next(it) : positions_.erase(it);
  }
}

bool ConsumerPositions::seek(const TopicPartition& tp, int64_t offset) {
  if (!is_assigned(tp)) return false;
  positions_[tp] = offset;
  return true;
}

void ConsumerPositions::advance(const TopicPartition& tp, int64_t next) {
  if (is_assigned(tp)) positions_[tp] = next;
}

std::optional<int64_t> ConsumerPositions::position(const TopicPartition& tp) const {
  auto it = positions_.find(tp);
  if (it == positions_.end()) return std::nullopt;
  return it->second;
}

std::vector<TopicPartition> ConsumerPositions::missing() const {
  std::vector<TopicPartition> out;
  for (const auto& tp : assigned_) {
    if (positions_.count(tp) == 0) out.push_back(tp);
  }
  return out;
}

std::map<TopicPartition, int64_t> ConsumerPositions::consumed() const { return positions_; }

}  // namespace skiff::restproxy
