// LogDeadLetterQueue: share::DeadLetterQueue (KIP-1191) over this broker's
// logs — Kafka's DefaultShareGroupDLQManager / ShareGroupDLQStateManager,
// which on one node need no Produce or CreateTopics round trip: the records
// are appended to the DLQ topic's log as a producer would write them.
//
// For each enqueued range (one source partition, offsets first..last), on
// its own worker thread, in order:
//   1. the checks of Kafka's validateDlqTopic: the group names a topic (else
//      refused), not starting with "__", an existing topic must have
//      errors.deadletterqueue.group.enable=true, a missing one needs
//      errors.deadletterqueue.auto.create.topics.enable, and a non-empty
//      errors.deadletterqueue.topic.name.prefix must prefix the name;
//   2. a missing topic is created with num.partitions and the configs
//      errors.deadletterqueue.group.enable=true, message.timestamp.type=CreateTime;
//   3. one record per offset to partition (source partition % partitions):
//      timestamp now, no compression, producer id -1, headers
//        __dlq.errors.topic  __dlq.errors.partition  __dlq.errors.offset
//        __dlq.errors.group  __dlq.errors.delivery.count  __dlq.errors.message
//      (UTF-8 text: the source topic's name, decimal numbers, the group id,
//      the cause), and with the group's errors.deadletterqueue.copy.record.enable
//      the source record's key and value read from its log (header-only
//      where that record is gone); batches cut at the DLQ topic's
//      max.message.bytes.
// Whatever the outcome (a refusal is logged), `done` runs afterwards, on the
// worker thread: the share partition archives the records either way.
//
// Threads: enabled() and enqueue() any thread, never blocking on I/O;
// write() is the worker's (public for tests). stop() joins the worker;
// pending ranges still get their `done`.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>

#include "log/log_manager.h"
#include "share/dead_letter_queue.h"

namespace skiff::server {

struct DeadLetterSettings {
  // The finalized share.version is 2+ (read at each use: UpdateFeatures may
  // change it); unset: off.
  std::function<bool()> share_version_has_dlq;
  bool auto_create_topics = false;         // errors.deadletterqueue.auto.create.topics.enable
  std::string topic_name_prefix = "dlq.";  // errors.deadletterqueue.topic.name.prefix
  int32_t num_partitions = 1;              // num.partitions, for an auto-created DLQ topic
  // The group's errors.deadletterqueue.topic.name ("" when unset) and
  // errors.deadletterqueue.copy.record.enable.
  std::function<std::string(const std::string& group_id)> group_topic;
  std::function<bool(const std::string& group_id)> group_copy_record;
  std::function<int64_t()> wall_clock_ms;
  // Records were appended to (topic, partition): wake the fetches waiting there.
  std::function<void(const std::string& topic, int32_t partition)> on_appended;
};

class LogDeadLetterQueue final : public share::DeadLetterQueue {
 public:
  LogDeadLetterQueue(storage::LogManager& logs, DeadLetterSettings settings);
  ~LogDeadLetterQueue() override;
  LogDeadLetterQueue(const LogDeadLetterQueue&) = delete;
  LogDeadLetterQueue& operator=(const LogDeadLetterQueue&) = delete;

  void start();
  void stop();

  bool enabled(const std::string& group_id) const override;
  void enqueue(share::DeadLetterRecords records, std::function<void()> done) override;

  // Writes one range now; nullopt when written, else why not (Kafka's message).
  std::optional<std::string> write(const share::DeadLetterRecords& records);

 private:
  void run();
  std::optional<std::string> dlq_topic(const std::string& group_id, std::optional<storage::TopicInfo>& topic);

  storage::LogManager& logs_;
  DeadLetterSettings settings_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::pair<share::DeadLetterRecords, std::function<void()>>> queue_;
  bool stopping_ = false;
  std::thread worker_;
};

}  // namespace skiff::server
