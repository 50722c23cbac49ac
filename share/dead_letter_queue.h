// The share partitions' port to KIP-1191's dead-letter queue (Kafka's
// org.apache.kafka.server.share.dlq.ShareGroupDLQManager): records a share
// partition archives on a client's REJECT, or at the delivery-count limit,
// go through the ARCHIVING state while the port copies them to the group's
// DLQ topic (errors.deadletterqueue.topic.name); once the port is done —
// written, refused or failed alike — they become ARCHIVED.
//
// share/ only calls the port; the implementation (server/share_dead_letters.h)
// owns the DLQ topic checks, its creation and the appends. Tests use a fake.
//
// Threads: any thread. enqueue() must not block on I/O; `done` may run on any
// thread, inline or later, exactly once.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "common/uuid.h"

namespace skiff::share {

// Kafka's ShareGroupDLQManager.CLIENT_REJECT / DELIVERY_COUNT_EXCEEDED
// messages (the __dlq.errors.message header).
inline constexpr const char* kDlqClientReject = "Offset rejected by client.";
inline constexpr const char* kDlqDeliveryCountExceeded = "Offset delivery count exceeded the threshold.";

// Kafka's ShareGroupDLQRecordParameter: offsets first..last (inclusive) of
// one source partition, archived with this delivery count for `cause`.
struct DeadLetterRecords {
  std::string group_id;
  Uuid topic_id;
  int32_t partition = 0;
  int64_t first_offset = 0;
  int64_t last_offset = 0;
  int16_t delivery_count = 0;
  std::string cause;
};

class DeadLetterQueue {
 public:
  virtual ~DeadLetterQueue() = default;
  // Kafka's SharePartition.isDLQEnabledForGroup: the finalized share.version
  // has the DLQ (2+) and the group names a DLQ topic. When false, rejected
  // and exhausted records are ARCHIVED at once, as at share.version 1.
  virtual bool enabled(const std::string& group_id) const = 0;
  // Writes the records to the group's DLQ topic (or gives up); then done().
  virtual void enqueue(DeadLetterRecords records, std::function<void()> done) = 0;
};

}  // namespace skiff::share
