#include "coordinator/share/share_types.h"

#include <algorithm>
#include <map>
#include <optional>

#include "common/kafka_hash.h"

namespace skiff::sharecoord {

std::string Key::coordinator_key() const {
  return group_id + ":" + topic_id.to_string() + ":" + std::to_string(partition);
}

int32_t partition_for(const Key& key, int32_t partitions) {
  return offsets_partition_for(key.coordinator_key(), partitions);  // abs(String.hashCode) % n
}

namespace {

// Kafka's BatchPriority: the higher delivery count wins, then the higher state.
struct Priority {
  int16_t count;
  int8_t state;
  bool operator<(const Priority& o) const { return count != o.count ? count > o.count : state > o.state; }
};

struct Event {
  int64_t offset;
  bool begin;
  Priority priority;
};

std::vector<StateBatch> pruned(const std::vector<StateBatch>& so_far, const std::vector<StateBatch>& fresh,
                               int64_t start) {
  std::vector<StateBatch> out;
  out.reserve(so_far.size() + fresh.size());
  for (const auto* src : {&so_far, &fresh}) {
    for (const auto& b : *src) {
      if (start != -1 && b.last_offset < start) continue;
      if (start == -1 || b.first_offset >= start) {
        out.push_back(b);
      } else {
        out.push_back({start, b.last_offset, b.delivery_state, b.delivery_count});
      }
    }
  }
  return out;
}

void append_coalesced(std::vector<StateBatch>& out, int64_t from, int64_t to, Priority p) {
  if (!out.empty()) {
    auto& tail = out.back();
    if (tail.last_offset + 1 == from && tail.delivery_state == p.state && tail.delivery_count == p.count) {
      tail.last_offset = to;
      return;
    }
  }
  out.push_back({from, to, p.state, p.count});
}

// A sweep over begin/end events keeping the active priorities (Kafka's sweepMerge).
std::vector<StateBatch> sweep_merge(const std::vector<StateBatch>& batches) {
  std::vector<Event> events;
  events.reserve(batches.size() * 2);
  for (const auto& b : batches) {
    const Priority p{b.delivery_count, b.delivery_state};
    events.push_back({b.first_offset, true, p});
    events.push_back({b.last_offset + 1, false, p});
  }
  std::stable_sort(events.begin(), events.end(), [](const Event& a, const Event& b) {
    return a.offset != b.offset ? a.offset < b.offset : (!a.begin && b.begin);  // ends first
  });
  std::map<Priority, int> active;
  std::vector<StateBatch> out;
  int64_t open_from = -1;
  std::optional<Priority> winner;
  for (size_t i = 0; i < events.size();) {
    const int64_t offset = events[i].offset;
    if (winner && offset > open_from) append_coalesced(out, open_from, offset - 1, *winner);
    for (; i < events.size() && events[i].offset == offset; ++i) {
      const auto& e = events[i];
      if (e.begin) {
        ++active[e.priority];
      } else if (auto it = active.find(e.priority); it != active.end() && --it->second == 0) {
        active.erase(it);
      }
    }
    winner = active.empty() ? std::nullopt : std::optional(active.begin()->first);
    open_from = offset;
  }
  return out;
}

}  // namespace

std::vector<StateBatch> combine_state_batches(const std::vector<StateBatch>& so_far,
                                              const std::vector<StateBatch>& fresh, int64_t start_offset) {
  auto batches = pruned(so_far, fresh, start_offset);
  if (batches.size() <= 1) return batches;
  return sweep_merge(batches);
}

}  // namespace skiff::sharecoord
