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

#include "api/api_request.h"
#include "api/authorize.h"
#include "api/broker_services.h"
#include "api/responder.h"
#include "coordinator/share/share_coordinator.h"
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

// The order of the request checks before any work, which Kafka's
// ShareCoordinatorService varies per API (the answer differs only when two
// checks fail at once).
struct Checks {
  bool coordinator_first = true;             // coordinator presence before the request's shape
  bool empty_if_partitionless_topic = true;  // a topic with no partitions: an empty answer
};

// CLUSTER_ACTION, then `checks`; answers and returns true when the request
// ends there.
template <typename Resp, typename Req>
bool answered_by_checks(const BrokerServices& services, ApiRequest& request, const Req& body, Responder& out,
                        Checks checks) {
  if (!authorized_cluster(services, request, AclOperation::kClusterAction)) {
    out.send(global_error<Resp>(body, ErrorCode::kClusterAuthorizationFailed, kClusterAuthorizationFailed));
    return true;
  }
  const bool no_coordinator = services.share_coordinator == nullptr;
  if (checks.coordinator_first && no_coordinator) {
    out.send(global_error<Resp>(body, ErrorCode::kCoordinatorNotAvailable, kNotAvailable));
    return true;
  }
  if (body.group_id.empty() || body.topics.empty() ||  // Kafka: an empty answer
      (checks.empty_if_partitionless_topic && any_topic_without_partitions(body))) {
    out.send(Resp{});
    return true;
  }
  if (no_coordinator) {
    out.send(global_error<Resp>(body, ErrorCode::kCoordinatorNotAvailable, kNotAvailable));
    return true;
  }
  if (partition_count(body) == 0) {
    out.send(skeleton<Resp>(body));
    return true;
  }
  return false;
}

// The checks, then `op(coordinator, key, request partition, slot_done)` for
// every partition, where `slot_done(fill)` runs `fill(slot)` on the
// partition's result (on the coordinator's thread) and sends the answer after
// the last one.
template <typename Resp, typename Req, typename Op>
void serve(const BrokerServices& services, ApiRequest& request, const Req& body, Responder& out, Checks checks, Op op) {
  if (answered_by_checks<Resp>(services, request, body, out, checks)) return;
  auto gather = std::make_shared<Gather<Resp>>(skeleton<Resp>(body), partition_count(body), out);
  auto& coordinator = *services.share_coordinator;
  for (size_t t = 0; t < body.topics.size(); ++t) {
    const auto& topic = body.topics[t];
    for (size_t i = 0; i < topic.partitions.size(); ++i) {
      const auto& p = topic.partitions[i];
      auto slot_done = [gather, t, i](const auto& fill) {
        fill(gather->slot(t, i));
        gather->done_one();
      };
      op(coordinator, sharecoord::Key{body.group_id, topic.topic_id, p.partition}, p, slot_done);
    }
  }
}

}  // namespace skiff::api::share_state
