#include "server/share_ports.h"

#include <memory>
#include <mutex>
#include <regex>
#include <utility>

#include "api/share_api.h"

namespace skiff::server {
namespace {

// Gathers one answer per partition; calls `done` with all of them after the last.
template <typename T>
class Gather {
 public:
  Gather(size_t n, std::function<void(std::vector<T>)> done) : left_(n), done_(std::move(done)) {}
  void add(T item) {
    std::vector<T> all;
    {
      std::lock_guard lock(mu_);
      items_.push_back(std::move(item));
      if (--left_ > 0) return;
      all = std::move(items_);
    }
    done_(std::move(all));
  }

 private:
  std::mutex mu_;
  size_t left_;
  std::vector<T> items_;
  std::function<void(std::vector<T>)> done_;
};

sharecoord::Key key_of(const std::string& group_id, const group::SharePartitionId& p) {
  return {group_id, p.topic_id, p.partition};
}

}  // namespace

void ShareStateOverCoordinator::initialize(const std::string& group_id, int32_t state_epoch,
                                           std::vector<group::ShareStateStart> partitions, ResultsCallback done) {
  if (partitions.empty()) return done({});
  auto gather = std::make_shared<Gather<group::ShareStateResult>>(partitions.size(), std::move(done));
  for (const auto& p : partitions)
    coordinator_.initialize(key_of(group_id, p.partition), state_epoch, p.start_offset,
                            [gather, id = p.partition](ErrorCode code, std::string message) {
                              gather->add({.partition = id, .error = code, .message = std::move(message)});
                            });
}

void ShareStateOverCoordinator::read_summary(const std::string& group_id,
                                             std::vector<group::SharePartitionId> partitions, SummaryCallback done) {
  if (partitions.empty()) return done({});
  auto gather = std::make_shared<Gather<group::ShareStateSummary>>(partitions.size(), std::move(done));
  for (const auto& p : partitions)
    coordinator_.read_summary(key_of(group_id, p),
                              [gather, id = p](ErrorCode code, std::string message, sharecoord::ShareSummary s) {
                                gather->add({.partition = id,
                                             .error = code,
                                             .message = std::move(message),
                                             .state_epoch = s.state_epoch,
                                             .leader_epoch = s.leader_epoch,
                                             .start_offset = s.start_offset,
                                             .delivery_complete_count = s.delivery_complete_count});
                              });
}

void ShareStateOverCoordinator::remove(const std::string& group_id, std::vector<group::SharePartitionId> partitions,
                                       ResultsCallback done) {
  if (partitions.empty()) return done({});
  auto gather = std::make_shared<Gather<group::ShareStateResult>>(partitions.size(), std::move(done));
  for (const auto& p : partitions)
    coordinator_.remove(key_of(group_id, p), [gather, id = p](ErrorCode code, std::string message) {
      gather->add({.partition = id, .error = code, .message = std::move(message)});
    });
}

std::optional<int64_t> iso8601_duration_ms(std::string_view text) {
  static const std::regex re(
      R"(^\+?[Pp](?:\+?(\d+)[Dd])?(?:[Tt](?:\+?(\d+)[Hh])?(?:\+?(\d+)[Mm])?(?:\+?(\d+)(?:[.,](\d{0,9}))?[Ss])?)?$)");
  std::cmatch m;
  if (!std::regex_match(text.begin(), text.end(), m, re)) return std::nullopt;
  auto num = [&](int i) -> int64_t { return m[i].matched ? std::stoll(m[i].str()) : 0; };
  int64_t ms = ((num(1) * 24 + num(2)) * 60 + num(3)) * 60000 + num(4) * 1000;
  if (m[5].matched && m[5].length() > 0) ms += std::stoll((m[5].str() + "000").substr(0, 3));
  return ms;
}

share::ShareGroupSettings GroupShareConfig::settings(const std::string& group_id) const {
  share::ShareGroupSettings s;
  s.record_lock_duration_ms = groups_.share_record_lock_duration_ms(group_id);
  s.delivery_count_limit = groups_.share_delivery_count_limit(group_id);
  s.partition_max_record_locks = groups_.share_partition_max_record_locks(group_id);
  s.read_committed = groups_.share_read_committed(group_id);
  s.renew_acknowledge_enabled = groups_.share_renew_acknowledge_enable(group_id);
  const std::string reset = groups_.share_auto_offset_reset(group_id);
  constexpr std::string_view kByDuration = "by_duration:";
  if (reset == "earliest") {
    s.auto_offset_reset = share::AutoOffsetReset::kEarliest;
  } else if (reset.starts_with(kByDuration)) {
    s.auto_offset_reset = share::AutoOffsetReset::kByDuration;
    s.auto_offset_reset_duration_ms =
        iso8601_duration_ms(std::string_view(reset).substr(kByDuration.size())).value_or(0);
  }
  return s;
}

share::SharePartitionManager::Ports share_manager_ports(storage::LogManager& logs, coordinator::TimerQueue& timers,
                                                        api::Purgatory* fetch_purgatory) {
  share::SharePartitionManager::Ports ports;
  ports.now_ms = share::steady_now_ms;
  ports.schedule = share::schedule_on(timers);
  ports.offset_for_timestamp = [&logs](const share::TopicIdPartition& tp, int64_t ts) -> int64_t {
    auto topic = logs.topic_by_id(tp.topic_id);
    auto log = topic ? logs.get_log(topic->name, tp.partition) : nullptr;
    if (!log) return -1;
    if (ts == -2) return log->log_start_offset().value;
    if (ts == -1) return log->log_end_offset().value;
    return log->offset_for_timestamp(ts).offset.value;
  };
  ports.on_acquirable = api::share_api::share_fetch_waker(fetch_purgatory);
  ports.leader_epoch = [](const share::TopicIdPartition&) { return 0; };
  return ports;
}

}  // namespace skiff::server
