// ConsumerInstance: one v2 consumer instance (POST /consumers/{group}), a
// Kafka consumer kept in the proxy between HTTP calls: its settings
// (format, auto.offset.reset, auto.commit.enable, fetch.min.bytes,
// consumer.request.timeout.ms), a subscription (topics or a pattern; group
// membership through GroupMember) or a manual assignment (no membership;
// commits with generation -1, as a consumer with assign()), its positions,
// and reading, seeking and committing as KafkaConsumer does them.
// Auto-commit (when enabled) commits what was consumed every 5 s from a
// poll, before a rejoin gives partitions up, and when the instance closes.
// Threads: the HTTP calls on one instance run one at a time (each public
// call but heartbeat() takes the instance's lock; a second call waits);
// heartbeat() runs on the manager's timer thread, and close() once, by the
// manager, after the instance left its table.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "apps/rest_proxy/consumer_group_member.h"
#include "apps/rest_proxy/consumer_positions.h"
#include "apps/rest_proxy/rest_kafka.h"
#include "apps/rest_proxy/v2_formats.h"
#include "apps/rest_proxy/v2_kafka.h"

namespace skiff::restproxy {

struct ConsumerSettings {
  std::string group, name;
  std::string principal = "User:ANONYMOUS";
  std::string user;
  EmbeddedFormat format = EmbeddedFormat::kBinary;
  std::string auto_offset_reset = "latest";  // earliest, latest or none
  bool auto_commit = true;
  int32_t fetch_min_bytes = 1;
  std::chrono::milliseconds request_timeout{1000};  // a poll's wait when the call names none
};

// A record as GET /records hands it out: key and value already JSON text.
struct ConsumedRecord {
  std::string topic;
  int32_t partition = 0;
  int64_t offset = 0;
  std::string key, value;
};

class ConsumerInstance {
 public:
  using Clock = std::chrono::steady_clock;
  static constexpr auto kAutoCommitInterval = std::chrono::seconds(5);

  // `kafka` empty: an instance that never reaches Kafka (unit tests).
  ConsumerInstance(ConsumerSettings settings, std::optional<RestKafka> kafka, std::shared_ptr<EmbeddedFormats> formats);
  const ConsumerSettings& settings() const { return settings_; }

  void subscribe(std::vector<std::string> topics, std::optional<std::string> pattern);
  std::vector<std::string> subscription();
  void unsubscribe();
  void assign(const std::set<TopicPartition>& partitions);
  std::set<TopicPartition> assignment();
  void seek(const std::map<TopicPartition, int64_t>& offsets);
  void seek_to(const std::set<TopicPartition>& partitions, bool beginning);
  // To the first offset whose timestamp is at or after the given one (epoch
  // ms), as KafkaConsumer.offsetsForTimes then seek; a partition with no
  // such record goes to its end.
  void seek_to_times(const std::map<TopicPartition, int64_t>& timestamps);
  // Waits up to `timeout` for records; at most `max_bytes` of keys and
  // values (one record at least) and `max_records` records.
  std::vector<ConsumedRecord> poll(std::chrono::milliseconds timeout, int64_t max_bytes, int max_records);
  // Commits `offsets` (the next offsets to read) when given, else every
  // consumed position.
  void commit(const std::optional<std::map<TopicPartition, int64_t>>& offsets);
  std::map<TopicPartition, Committed> committed(const std::set<TopicPartition>& partitions);

  // The timer: a heartbeat when due.
  void heartbeat(Clock::time_point now);
  // Auto-commit, then leave the group. Once, by the manager.
  void close();

  // Idle bookkeeping for expiry (the manager's).
  void touch(Clock::time_point now) { last_used_ = now.time_since_epoch().count(); }
  void begin_use(Clock::time_point now);
  void end_use(Clock::time_point now);
  bool idle_since(Clock::time_point before) const;

 private:
  client::InProcessClient kafka();
  std::vector<std::string> topics_to_join(client::InProcessClient& kafka);
  void ensure_member(client::InProcessClient& kafka);
  void resolve_positions(client::InProcessClient& kafka);
  void maybe_auto_commit(client::InProcessClient& kafka, bool force);
  void commit_locked(client::InProcessClient& kafka, const std::map<TopicPartition, int64_t>& offsets, bool quiet);
  bool read_fetched(const protocol::FetchResponse& resp, int64_t max_bytes, int max_records,
                    std::vector<ConsumedRecord>& out);

  const ConsumerSettings settings_;
  const std::optional<RestKafka> kafka_;
  const std::shared_ptr<EmbeddedFormats> formats_;
  std::mutex mu_;  // one HTTP call at a time
  std::vector<std::string> topics_;
  std::optional<std::string> pattern_;
  std::atomic<bool> manual_{false};  // assign() rather than subscribe(); read by the timer too
  std::vector<std::string> joined_topics_;
  ConsumerPositions positions_;
  GroupMember member_;
  Clock::time_point last_auto_commit_{};
  std::atomic<int> in_use_{0};
  std::atomic<int64_t> last_used_{0};  // Clock ticks
};

}  // namespace skiff::restproxy
