#include "server/share_dead_letters.h"

#include <cctype>
#include <map>
#include <span>
#include <vector>

#include "common/log_escape.h"
#include "coordinator/runtime/coordinator_log.h"
#include "log/batch_builder.h"
#include "log/compression.h"
#include "log/record_batch.h"

namespace skiff::server {
namespace {

constexpr size_t kMaxSourceFetchBytes = 1 << 20;    // Kafka's DLQ_MAX_FETCH_BYTES
constexpr size_t kMaxDecompressedBytes = 64 << 20;  // one source batch, decompressed
constexpr int64_t kBatchOverhead = 61;              // a v2 batch's header
constexpr int64_t kRecordOverhead = 32;             // a record's varints, generously

struct SourceRecord {
  std::optional<std::string> key;
  std::optional<std::string> value;
};
using SourceRecords = std::map<int64_t, SourceRecord>;

std::optional<std::string> text(const std::optional<std::span<const uint8_t>>& bytes) {
  if (!bytes) return std::nullopt;
  return std::string(reinterpret_cast<const char*>(bytes->data()), bytes->size());
}

// The records of one batch within [first, last] (a compressed batch is
// decompressed into a copy whose attributes say uncompressed).
void collect(const storage::RecordBatchView& batch, int64_t first, int64_t last, SourceRecords& out) {
  if (batch.is_control()) return;
  std::vector<uint8_t> plain;
  storage::RecordBatchView view = batch;
  if (batch.compression() != storage::Compression::kNone) {
    auto records = storage::decompress(batch.compression(), batch.records_bytes(), kMaxDecompressedBytes);
    if (!records) return;
    plain.assign(batch.data(), batch.data() + storage::batch_layout::kHeaderSize);
    plain.insert(plain.end(), records->begin(), records->end());
    plain[storage::batch_layout::kAttributes + 1] &= static_cast<uint8_t>(~storage::batch_layout::kCompressionMask);
    view = storage::RecordBatchView(std::span<uint8_t>(plain));
  }
  storage::RecordIterator it(view);
  storage::RecordView r;
  while (it.next(r)) {
    int64_t offset = r.offset(view);
    if (offset < first || offset > last) continue;
    out[offset] = SourceRecord{text(r.key), text(r.value)};
  }
}

// Kafka's ShareGroupDLQRecordFetcher: the source records first..last still in the log.
SourceRecords read_source(const storage::Log& log, int64_t first, int64_t last) {
  SourceRecords out;
  int64_t next = first;
  while (next <= last) {
    auto slice = log.read(storage::Offset(next), kMaxSourceFetchBytes);
    if (!slice) break;
    std::vector<uint8_t> bytes = slice.value().slice.read_all();
    if (bytes.empty()) break;
    storage::BatchIterator batches{std::span<uint8_t>(bytes)};
    storage::RecordBatchView batch;
    int64_t reached = next;
    while (batches.next(batch)) {
      collect(batch, first, last, out);
      reached = batch.next_offset();
    }
    if (reached <= next) break;
    next = reached;
  }
  return out;
}

storage::BuilderRecord dead_letter_record(const share::DeadLetterRecords& r, const std::string& topic, int64_t offset,
                                          int64_t now, const SourceRecord* source) {
  storage::BuilderRecord out;
  out.timestamp = now;
  if (source) {
    out.key = source->key;
    out.value = source->value;
  }
  out.headers = {{"__dlq.errors.topic", topic},
                 {"__dlq.errors.partition", std::to_string(r.partition)},
                 {"__dlq.errors.offset", std::to_string(offset)},
                 {"__dlq.errors.group", r.group_id},
                 {"__dlq.errors.delivery.count", std::to_string(r.delivery_count)}};
  if (!r.cause.empty()) out.headers.emplace_back("__dlq.errors.message", r.cause);
  return out;
}

int64_t approximate_size(const storage::BuilderRecord& r) {
  int64_t n = kRecordOverhead + (r.key ? static_cast<int64_t>(r.key->size()) : 0) +
              (r.value ? static_cast<int64_t>(r.value->size()) : 0);
  for (const auto& [k, v] : r.headers) n += 10 + static_cast<int64_t>(k.size() + (v ? v->size() : 0));
  return n;
}

// The topic's errors.deadletterqueue.group.enable (a topic config without a
// broker default: false unless set on the topic).
bool dlq_enabled_on(const storage::TopicInfo& topic) {
  auto flag = topic.overrides.find("errors.deadletterqueue.group.enable");
  if (flag == topic.overrides.end()) return false;
  std::string v;
  for (char c : flag->second)
    if (c != ' ') v += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return v == "true";
}

}  // namespace

LogDeadLetterQueue::LogDeadLetterQueue(storage::LogManager& logs, DeadLetterSettings settings)
    : logs_(logs), settings_(std::move(settings)) {}

LogDeadLetterQueue::~LogDeadLetterQueue() { stop(); }

void LogDeadLetterQueue::start() {
  std::lock_guard lock(mu_);
  if (worker_.joinable() || stopping_) return;
  worker_ = std::thread([this] { run(); });
}

void LogDeadLetterQueue::stop() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  if (worker_.joinable()) worker_.join();
  // Never started, or stopped with work left: archive without writing.
  std::deque<std::pair<share::DeadLetterRecords, std::function<void()>>> left;
  {
    std::lock_guard lock(mu_);
    left.swap(queue_);
  }
  for (auto& [records, done] : left) done();
}

bool LogDeadLetterQueue::enabled(const std::string& group_id) const {
  return settings_.share_version_has_dlq && settings_.share_version_has_dlq() && settings_.group_topic &&
         !settings_.group_topic(group_id).empty();
}

void LogDeadLetterQueue::enqueue(share::DeadLetterRecords records, std::function<void()> done) {
  {
    std::lock_guard lock(mu_);
    if (!stopping_) {
      queue_.emplace_back(std::move(records), std::move(done));
      cv_.notify_one();
      return;
    }
  }
  done();
}

void LogDeadLetterQueue::run() {
  for (;;) {
    std::pair<share::DeadLetterRecords, std::function<void()>> item;
    {
      std::unique_lock lock(mu_);
      cv_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
      if (queue_.empty()) return;
      item = std::move(queue_.front());
      queue_.pop_front();
    }
    if (auto refused = write(item.first))
      coordinator::log().error("share group {}: DLQ write of offsets {}-{} failed: {}", escaped(item.first.group_id),
                               item.first.first_offset, item.first.last_offset, escaped(*refused));
    item.second();
  }
}

// Kafka's validateDlqTopic, then the creation of a missing topic; the DLQ
// topic, or why not.
std::optional<std::string> LogDeadLetterQueue::dlq_topic(const std::string& g,
                                                         std::optional<storage::TopicInfo>& topic) {
  const std::string name = settings_.group_topic ? settings_.group_topic(g) : std::string();
  if (name.empty()) return "Configured DLQ topic name in share group: " + g + " is empty.";
  if (name.starts_with("__"))
    return "Configured DLQ topic name in share group: " + g + " cannot start with __, topic: " + name + ".";
  topic = logs_.topic(name);
  if (topic) {
    if (!dlq_enabled_on(*topic))
      return "DLQ is not enabled on configured DLQ topic for share group: " + g + ", topic: " + name + ".";
  } else if (!settings_.auto_create_topics) {
    return "DLQ topic does not exist and auto create is disabled on cluster for share group: " + g +
           ", topic: " + name + ".";
  }
  const std::string& prefix = settings_.topic_name_prefix;
  if (!prefix.empty() && !name.starts_with(prefix))
    return "Configured DLQ topic name does not comply with the DLQ topic prefix in share group: " + g +
           ", topic: " + name + ", prefix: " + prefix + ".";
  if (!topic) {
    auto created =
        logs_.create_topic(name, settings_.num_partitions,
                           {{"errors.deadletterqueue.group.enable", "true"}, {"message.timestamp.type", "CreateTime"}});
    if (!created && created.error().code != storage::LogErrc::kTopicAlreadyExists)
      return "Unable to create DLQ topic " + name + ": " + created.error().message;
    topic = logs_.topic(name);
    if (!topic || topic->partitions <= 0) return "DLQ topic " + name + " could not be found.";
  }
  return std::nullopt;
}

std::optional<std::string> LogDeadLetterQueue::write(const share::DeadLetterRecords& r) {
  const std::string& g = r.group_id;
  std::optional<storage::TopicInfo> topic;
  if (auto refused = dlq_topic(g, topic)) return refused;
  const std::string& name = topic->name;
  const int32_t dest = r.partition % topic->partitions;
  auto log = logs_.get_log(name, dest);
  if (!log) return "DLQ topic " + name + " partition " + std::to_string(dest) + " could not be found.";
  auto source_topic = logs_.topic_by_id(r.topic_id);
  const std::string source_name = source_topic ? source_topic->name : r.topic_id.to_string();
  SourceRecords source;
  if (settings_.group_copy_record && settings_.group_copy_record(g) && source_topic)
    if (auto source_log = logs_.get_log(source_topic->name, r.partition))
      source = read_source(*source_log, r.first_offset, r.last_offset);
  const int64_t max_bytes = log->config()->max_message_bytes;
  const int64_t now = settings_.wall_clock_ms ? settings_.wall_clock_ms() : 0;
  storage::BatchBuilder builder;
  int64_t size = kBatchOverhead;
  auto flush = [&]() -> std::optional<std::string> {
    if (builder.record_count() == 0) return std::nullopt;
    std::vector<uint8_t> batch = builder.build();
    builder = storage::BatchBuilder{};
    size = kBatchOverhead;
    auto appended = log->append(batch, /*leader_epoch=*/0, now);
    if (!appended) return "Unable to produce to DLQ topic " + name + ": " + appended.error().message;
    if (settings_.on_appended) settings_.on_appended(name, dest);
    return std::nullopt;
  };
  for (int64_t offset = r.first_offset; offset <= r.last_offset; ++offset) {
    auto found = source.find(offset);
    storage::BuilderRecord rec =
        dead_letter_record(r, source_name, offset, now, found == source.end() ? nullptr : &found->second);
    int64_t n = approximate_size(rec);
    if (builder.record_count() > 0 && size + n > max_bytes)
      if (auto failed = flush()) return failed;
    size += n;
    builder.add(std::move(rec));
  }
  return flush();
}

}  // namespace skiff::server
