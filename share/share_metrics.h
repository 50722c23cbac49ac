// ShareMetrics: the broker-wide counters of share groups (KIP-932), Kafka's
// ShareGroupMetrics (RecordAcknowledgementsPerSec by ackType), the
// all-topics share rates of BrokerTopicMetrics (TotalShareFetchRequestsPerSec,
// FailedShareFetchRequestsPerSec, TotalShareAcknowledgementRequestsPerSec,
// FailedShareAcknowledgementRequestsPerSec), ShareSessionCache's
// ShareSessionEvictionsPerSec and the sum of SharePartitionMetrics'
// AcquisitionLockTimeoutPerSec. Kafka's meters are rates; here each is a
// monotonic count (Prometheus derives the rate). server/share_metrics.h
// exposes them on /metrics.
//
// Counting, as Kafka marks its meters:
//   share fetch requests         one per topic of a ShareFetch that fetches
//   failed share fetch requests  one per partition answered with an error
//   share acknowledgement reqs   one per topic acknowledged (ShareFetch or ShareAcknowledge)
//   failed acknowledgement reqs  one per partition whose acknowledgement failed
//   records acknowledged         per type, records of the successful acknowledgements
//   session evictions            sessions removed because their connection closed
//   acquisition lock timeouts    records whose acquisition lock expired
//
// Threads: every member is a relaxed atomic; any thread, never blocks.
#pragma once

#include <array>
#include <cstdint>

#include "common/metrics.h"

namespace skiff::share {

class ShareMetrics {
 public:
  // Kafka's AcknowledgeType ids that are counted: 1 ACCEPT .. 4 RENEW.
  static constexpr int8_t kFirstAckType = 1;
  static constexpr int8_t kLastAckType = 4;
  // Kafka's tag value ("Accept", "Release", "Reject", "Renew"); null when
  // type is not counted (GAP, or unknown).
  static const char* ack_type_name(int8_t type);

  void record_acknowledgement(int8_t type, uint64_t records = 1) {
    if (type >= kFirstAckType && type <= kLastAckType) acknowledged_[index(type)].add(records);
  }
  uint64_t acknowledged(int8_t type) const {
    return type >= kFirstAckType && type <= kLastAckType ? acknowledged_[index(type)].value() : 0;
  }

  metrics::Counter& share_fetch_requests() { return fetch_requests_; }
  metrics::Counter& failed_share_fetch_requests() { return failed_fetch_requests_; }
  metrics::Counter& share_acknowledgement_requests() { return ack_requests_; }
  metrics::Counter& failed_share_acknowledgement_requests() { return failed_ack_requests_; }
  metrics::Counter& session_evictions() { return session_evictions_; }
  metrics::Counter& acquisition_lock_timeouts() { return lock_timeouts_; }
  const metrics::Counter& share_fetch_requests() const { return fetch_requests_; }
  const metrics::Counter& failed_share_fetch_requests() const { return failed_fetch_requests_; }
  const metrics::Counter& share_acknowledgement_requests() const { return ack_requests_; }
  const metrics::Counter& failed_share_acknowledgement_requests() const { return failed_ack_requests_; }
  const metrics::Counter& session_evictions() const { return session_evictions_; }
  const metrics::Counter& acquisition_lock_timeouts() const { return lock_timeouts_; }

 private:
  static size_t index(int8_t type) { return static_cast<size_t>(type - kFirstAckType); }

  std::array<metrics::Counter, kLastAckType - kFirstAckType + 1> acknowledged_;
  metrics::Counter fetch_requests_, failed_fetch_requests_, ack_requests_, failed_ack_requests_;
  metrics::Counter session_evictions_, lock_timeouts_;
};

inline const char* ShareMetrics::ack_type_name(int8_t type) {
  switch (type) {
    case 1:
      return "Accept";
    case 2:
      return "Release";
    case 3:
      return "Reject";
    case 4:
      return "Renew";
    default:
      return nullptr;
  }
}

}  // namespace skiff::share
