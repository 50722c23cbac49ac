// What the five share-group state handlers (APIs 83-87, Kafka's
// ShareCoordinatorService.*State) share: the answer's skeleton (one result
// per request topic, one partition result per request partition, in request
// order), the whole-request error (Kafka's toGlobalErrorResponse), and the
// gathering of per-partition answers that arrive on the share coordinator's
// thread (coordinator/share/share_coordinator.h): each answer fills its own
// slot, the last one sends the response through the copied Responder.
//
// Threads: the skeleton is built on the handler thread before any operation
// is posted; afterwards each slot is written by one completion, and the
// atomic count orders them before the send.
#pragma once

#include <atomic>
#include <memory>
#include <string>
#include <string_view>

#include "api/responder.h"
#include "coordinator/share/share_types.h"
#include "protocol/error_codes.h"

namespace skiff::api::share_state {

inline constexpr std::string_view kClusterAuthorizationFailed = "Cluster authorization failed.";
inline constexpr std::string_view kNotAvailable = "Share coordinator is not available.";

template <typename Resp, typename Req>
Resp skeleton(const Req& body) {
  Resp r;
  r.results.reserve(body.topics.size());
  for (const auto& t : body.topics) {
    auto& result = r.results.emplace_back();
    result.topic_id = t.topic_id;
    result.partitions.reserve(t.partitions.size());
    for (const auto& p : t.partitions) result.partitions.emplace_back().partition = p.partition;
  }
  return r;
}

template <typename Resp, typename Req>
Resp global_error(const Req& body, ErrorCode error, std::string_view message) {
  auto r = skeleton<Resp>(body);
  for (auto& t : r.results) {
    for (auto& p : t.partitions) {
      p.error_code = code(error);
      p.error_message = std::string(message);
    }
  }
  return r;
}

// error_response(): the code on every partition, no message.
template <typename Resp, typename Req>
Resp error_codes(const Req& body, ErrorCode error) {
  auto r = skeleton<Resp>(body);
  for (auto& t : r.results)
    for (auto& p : t.partitions) p.error_code = code(error);
  return r;
}

template <typename Req>
size_t partition_count(const Req& body) {
  size_t n = 0;
  for (const auto& t : body.topics) n += t.partitions.size();
  return n;
}

template <typename Req>
bool any_topic_without_partitions(const Req& body) {
  for (const auto& t : body.topics)
    if (t.partitions.empty()) return true;
  return false;
}

// The answers of `count` partitions, sent once all arrived.
template <typename Resp>
class Gather {
 public:
  Gather(Resp skeleton, size_t count, Responder out)
      : resp_(std::move(skeleton)), remaining_(count), out_(std::move(out)) {}
  auto& slot(size_t topic, size_t partition) { return resp_.results[topic].partitions[partition]; }
  void done_one() {
    if (remaining_.fetch_sub(1, std::memory_order_acq_rel) == 1) out_.send(resp_);
  }

 private:
  Resp resp_;
  std::atomic<size_t> remaining_;
  Responder out_;
};

// Fills a partition result's error fields (the message only on an error, as Kafka).
template <typename Slot>
void set_error(Slot& slot, ErrorCode e, const std::string& message) {
  slot.error_code = code(e);
  if (e != ErrorCode::kNone) slot.error_message = message;
}

}  // namespace skiff::api::share_state
