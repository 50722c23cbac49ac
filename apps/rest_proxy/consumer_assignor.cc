#include "apps/rest_proxy/consumer_assignor.h"

#include <set>

#include "protocol/byte_writer.h"

namespace skiff::restproxy {

std::vector<uint8_t> encode_subscription(const std::vector<std::string>& topics) {
  protocol::ByteWriter w;
  w.write_int16(1);
  w.write_array_length(topics.size(), false);
  for (const auto& t : topics) w.write_string(t, false);
  w.write_nullable_bytes(std::nullopt, false);
  w.write_array_length(0, false);  // owned partitions: none (eager protocol)
  return w.take_bytes();
}

std::map<std::string, protocol::NamedPartitions> range_assign(
    const std::map<std::string, std::vector<std::string>>& subscriptions,
    const std::map<std::string, int32_t>& partition_counts) {
  std::map<std::string, protocol::NamedPartitions> out;
  std::map<std::string, std::vector<std::string>> members_of;  // topic -> members, sorted (map order)
  for (const auto& [member, topics] : subscriptions) {
    out[member];
    for (const auto& t : std::set<std::string>(topics.begin(), topics.end())) members_of[t].push_back(member);
  }
  for (const auto& [topic, members] : members_of) {
    auto it = partition_counts.find(topic);
    if (it == partition_counts.end() || it->second <= 0) continue;
    const int32_t count = it->second;
    const auto n = static_cast<int32_t>(members.size());
    const int32_t each = count / n;
    const int32_t extra = count % n;
    int32_t next = 0;
    for (int32_t i = 0; i < n; ++i) {
      const int32_t take = each + (i < extra ? 1 : 0);
      for (int32_t p = next; p < next + take; ++p) out[members[static_cast<size_t>(i)]][topic].insert(p);
      next += take;
    }
  }
  return out;
}

}  // namespace skiff::restproxy
