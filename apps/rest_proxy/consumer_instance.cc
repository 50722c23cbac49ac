#include "apps/rest_proxy/consumer_instance.h"

#include <algorithm>
#include <thread>

#include "apps/rest_proxy/rest_errors.h"
#include "apps/rest_proxy/v2_kafka.h"
#include "client/records.h"
#include "protocol/error_codes.h"
#include "protocol/name_pattern.h"

namespace skiff::restproxy {
namespace {

constexpr auto kFetchSlice = std::chrono::milliseconds(500);  // a long poll checks for rebalances this often
constexpr int64_t kMaxFetchBytes = 64LL << 20;

[[noreturn]] void illegal_state(const std::string& why) { throw RestError(409, 40903, "Illegal state: " + why); }

}  // namespace

ConsumerInstance::ConsumerInstance(ConsumerSettings settings, std::optional<RestKafka> kafka,
                                   std::shared_ptr<EmbeddedFormats> formats)
    : settings_(std::move(settings)),
      kafka_(std::move(kafka)),
      formats_(std::move(formats)),
      member_(settings_.group) {}

client::InProcessClient ConsumerInstance::kafka() {
  if (!kafka_) throw RestError(500, 50001, "this consumer instance has no Kafka");
  return kafka_->client(settings_.principal);
}

void ConsumerInstance::subscribe(std::vector<std::string> topics, std::optional<std::string> pattern) {
  std::lock_guard lock(mu_);
  if (manual_) illegal_state("Subscription to topics, partitions and pattern are mutually exclusive");
  if (pattern) {
    const protocol::NamePattern check(*pattern);
    if (!check.ok()) throw RestError(422, 42204, "Invalid consumer configuration: topic_pattern: " + check.error());
  }
  std::sort(topics.begin(), topics.end());
  topics.erase(std::unique(topics.begin(), topics.end()), topics.end());
  topics_ = std::move(topics);
  pattern_ = std::move(pattern);
  joined_topics_.clear();  // a changed subscription rejoins at the next poll
}

std::vector<std::string> ConsumerInstance::subscription() {
  std::lock_guard lock(mu_);
  return pattern_ ? joined_topics_ : topics_;
}

void ConsumerInstance::unsubscribe() {
  std::lock_guard lock(mu_);
  if (kafka_ && (!topics_.empty() || pattern_)) {
    auto k = kafka();
    maybe_auto_commit(k, true);
    member_.leave(k);
  }
  topics_.clear();
  pattern_.reset();
  joined_topics_.clear();
  manual_ = false;
  positions_.assign({});
}

void ConsumerInstance::assign(const std::set<TopicPartition>& partitions) {
  std::lock_guard lock(mu_);
  if (!topics_.empty() || pattern_)
    illegal_state("Subscription to topics, partitions and pattern are mutually exclusive");
  manual_ = !partitions.empty();
  positions_.assign(partitions);
}

std::set<TopicPartition> ConsumerInstance::assignment() {
  std::lock_guard lock(mu_);
  return positions_.assigned();
}

void ConsumerInstance::seek(const std::map<TopicPartition, int64_t>& offsets) {
  std::lock_guard lock(mu_);
  for (const auto& [tp, offset] : offsets) {
    if (!positions_.is_assigned(tp))
      illegal_state("No current assignment for partition " + tp.first + "-" + std::to_string(tp.second));
  }
  for (const auto& [tp, offset] : offsets) positions_.seek(tp, offset);
}

void ConsumerInstance::seek_to(const std::set<TopicPartition>& partitions, bool beginning) {
  std::lock_guard lock(mu_);
  for (const auto& tp : partitions) {
    if (!positions_.is_assigned(tp))
      illegal_state("No current assignment for partition " + tp.first + "-" + std::to_string(tp.second));
  }
  auto k = kafka();
  for (const auto& [tp, offset] : list_offsets(k, partitions, beginning ? -2 : -1)) positions_.seek(tp, offset);
}

void ConsumerInstance::seek_to_times(const std::map<TopicPartition, int64_t>& timestamps) {
  std::lock_guard lock(mu_);
  std::map<int64_t, std::set<TopicPartition>> by_time;
  for (const auto& [tp, ts] : timestamps) {
    if (!positions_.is_assigned(tp))
      illegal_state("No current assignment for partition " + tp.first + "-" + std::to_string(tp.second));
    by_time[ts].insert(tp);
  }
  auto k = kafka();
  std::set<TopicPartition> past_the_end;
  for (const auto& [ts, partitions] : by_time) {
    for (const auto& [tp, offset] : list_offsets(k, partitions, ts)) {
      if (offset < 0)
        past_the_end.insert(tp);
      else
        positions_.seek(tp, offset);
    }
  }
  for (const auto& [tp, offset] : list_offsets(k, past_the_end, -1)) positions_.seek(tp, offset);
}

std::vector<std::string> ConsumerInstance::topics_to_join(client::InProcessClient& kafka) {
  if (!pattern_) return topics_;
  const protocol::NamePattern re(*pattern_);  // RE2: linear in the name, whatever the pattern
  std::vector<std::string> out;
  for (const auto& [name, topic] : metadata(kafka, nullptr).topics) {
    if (!topic.internal && re.matches(name)) out.push_back(name);
  }
  return out;
}

void ConsumerInstance::ensure_member(client::InProcessClient& kafka) {
  if (manual_ || (topics_.empty() && !pattern_)) return;
  auto topics = topics_to_join(kafka);
  if (!member_.needs_join() && topics == joined_topics_) return;
  maybe_auto_commit(kafka, true);  // eager: the partitions are given up
  positions_.assign({});
  joined_topics_ = topics;
  positions_.assign(member_.join(kafka, topics));
}

void ConsumerInstance::resolve_positions(client::InProcessClient& kafka) {
  const auto missing = positions_.missing();
  if (missing.empty()) return;
  std::set<TopicPartition> unresolved;
  for (const auto& [tp, c] : committed_offsets(kafka, settings_.group, {missing.begin(), missing.end()})) {
    if (c.offset >= 0) {
      positions_.seek(tp, c.offset);
    }
  }
  for (const auto& tp : positions_.missing()) unresolved.insert(tp);
  if (unresolved.empty()) return;
  if (settings_.auto_offset_reset == "none")
    illegal_state("Undefined offset with no reset policy for partitions: " + unresolved.begin()->first + "-" +
                  std::to_string(unresolved.begin()->second));
  const int64_t at = settings_.auto_offset_reset == "earliest" ? -2 : -1;
  for (const auto& [tp, offset] : list_offsets(kafka, unresolved, at)) positions_.seek(tp, offset);
}

void ConsumerInstance::commit_locked(client::InProcessClient& kafka, const std::map<TopicPartition, int64_t>& offsets,
                                     bool quiet) {
  const auto [generation, member] = manual_ ? std::pair<int32_t, std::string>{-1, ""} : member_.commit_identity();
  for (const auto& [tp, code] : commit_offsets(kafka, settings_.group, generation, member, offsets)) {
    if (!quiet) throw_v2(code, "commit of " + tp.first + "-" + std::to_string(tp.second));
  }
}

void ConsumerInstance::maybe_auto_commit(client::InProcessClient& kafka, bool force) {
  if (!settings_.auto_commit) return;
  const auto now = Clock::now();
  if (!force && now - last_auto_commit_ < kAutoCommitInterval) return;
  last_auto_commit_ = now;
  const auto consumed = positions_.consumed();
  if (consumed.empty()) return;
  try {
    commit_locked(kafka, consumed, true);
  } catch (const std::exception&) {
    // as a Kafka consumer's auto-commit: logged by the broker, retried at the next
  }
}

std::vector<ConsumedRecord> ConsumerInstance::poll(std::chrono::milliseconds timeout, int64_t max_bytes,
                                                   int max_records) {
  std::lock_guard lock(mu_);
  const auto deadline = Clock::now() + timeout;
  auto k = kafka();
  maybe_auto_commit(k, false);
  std::vector<ConsumedRecord> out;
  const auto fetch_bytes = static_cast<int32_t>(std::clamp<int64_t>(max_bytes, 1, kMaxFetchBytes));
  while (true) {
    ensure_member(k);  // as poll() does: (re)joins when the group rebalances
    resolve_positions(k);
    std::map<TopicPartition, int64_t> from;
    for (const auto& tp : positions_.assigned()) {
      if (auto p = positions_.position(tp)) from[tp] = *p;
    }
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    const auto wait = std::clamp(left, std::chrono::milliseconds(0), kFetchSlice);
    if (from.empty()) {
      if (left.count() <= 0) break;
      std::this_thread::sleep_for(wait);
      continue;
    }
    auto resp = fetch(k, from, static_cast<int32_t>(wait.count()), settings_.fetch_min_bytes, fetch_bytes);
    const bool full = read_fetched(resp, max_bytes, max_records, out);
    if (full || !out.empty() || left.count() <= 0) break;
  }
  return out;
}

// Appends the records of `resp` at the positions, advancing them; true when
// a bound was reached.
bool ConsumerInstance::read_fetched(const protocol::FetchResponse& resp, int64_t max_bytes, int max_records,
                                    std::vector<ConsumedRecord>& out) {
  EmbeddedDecoder decoder(settings_.format, formats_.get());
  int64_t bytes = 0;
  bool full = false;
  for (const auto& topic : resp.responses) {
    for (const auto& data : topic.partitions) {
      const TopicPartition tp{topic.topic, data.partition_index};
      const auto at = positions_.position(tp);
      if (!at) continue;
      if (data.error_code == code(ErrorCode::kOffsetOutOfRange)) positions_.reset(tp);
      if (data.error_code != 0 || full) continue;
      client::PartitionRecords records(data.partition_index, data);
      int64_t next = *at;
      records.for_each(*at, [&](client::Record r) {
        if (full) return;
        out.push_back({topic.topic, r.partition, r.offset, decoder.decode(r.key), decoder.decode(r.value)});
        bytes += static_cast<int64_t>((r.key ? r.key->size() : 0) + (r.value ? r.value->size() : 0));
        next = r.offset + 1;
        full = bytes >= max_bytes || static_cast<int>(out.size()) >= max_records;
      });
      if (!full) next = std::max(next, records.next_offset());
      positions_.advance(tp, next);
    }
  }
  return full;
}

void ConsumerInstance::commit(const std::optional<std::map<TopicPartition, int64_t>>& offsets) {
  std::lock_guard lock(mu_);
  auto k = kafka();
  commit_locked(k, offsets ? *offsets : positions_.consumed(), false);
}

std::map<TopicPartition, Committed> ConsumerInstance::committed(const std::set<TopicPartition>& partitions) {
  std::lock_guard lock(mu_);
  auto k = kafka();
  return committed_offsets(k, settings_.group, partitions);
}

void ConsumerInstance::heartbeat(Clock::time_point now) {
  if (!kafka_ || manual_) return;
  auto k = kafka();
  member_.heartbeat_if_due(k, now);
}

void ConsumerInstance::close() {
  std::lock_guard lock(mu_);
  if (!kafka_) return;
  auto k = kafka();
  maybe_auto_commit(k, true);
  if (!manual_) member_.leave(k);
}

void ConsumerInstance::begin_use(Clock::time_point now) {
  ++in_use_;
  last_used_ = now.time_since_epoch().count();
}

void ConsumerInstance::end_use(Clock::time_point now) {
  last_used_ = now.time_since_epoch().count();
  --in_use_;
}

bool ConsumerInstance::idle_since(Clock::time_point before) const {
  return in_use_ == 0 && last_used_ < before.time_since_epoch().count();
}

}  // namespace skiff::restproxy
