#include "api/handlers/write_txn_markers_handler.h"

#include <atomic>
#include <memory>

#include "api/api_log.h"
#include "api/authorize.h"
#include "api/purgatory.h"
#include "api/topics.h"
#include "common/log_escape.h"
#include "coordinator/txn/txn_gates.h"
#include "coordinator/txn/txn_marker_writer.h"

namespace skiff::api {
namespace {

using protocol::WriteTxnMarkersRequest;
using protocol::WriteTxnMarkersResponse;
using PartitionResult = WriteTxnMarkersResponse::WritableTxnMarkerPartitionResult;

// The response mirrors the request; `answer(marker, topic, partition)` fills each code.
template <class Answer>
WriteTxnMarkersResponse mirror(const WriteTxnMarkersRequest& body, Answer&& answer) {
  WriteTxnMarkersResponse resp;
  for (const auto& m : body.markers) {
    WriteTxnMarkersResponse::WritableTxnMarkerResult mr;
    mr.producer_id = m.producer_id;
    for (const auto& t : m.topics) {
      WriteTxnMarkersResponse::WritableTxnMarkerTopicResult tr;
      tr.name = t.name;
      for (int32_t p : t.partition_indexes) {
        PartitionResult pr;
        pr.partition_index = p;
        pr.error_code = code(answer(m, t.name, p));
        tr.partitions.push_back(pr);
      }
      mr.topics.push_back(std::move(tr));
    }
    resp.markers.push_back(std::move(mr));
  }
  return resp;
}

// The answer waits for the group coordinator's completions (if any).
struct Pending {
  WriteTxnMarkersResponse resp;
  std::atomic<int> left{1};  // 1 = the handler itself, released after the loop
  Responder out;
  explicit Pending(Responder r) : out(std::move(r)) {}
  void release() {
    if (left.fetch_sub(1) == 1) out.send(resp);
  }
};

}  // namespace

ErrorCode WriteTxnMarkersHandler::append(const WriteTxnMarkersRequest::WritableTxnMarker& m, const std::string& topic,
                                         int32_t partition) {
  auto log = find_log(services_, topic, partition);
  if (!log) return ErrorCode::kUnknownTopicOrPartition;
  auto e = txn::append_log_marker(*log, fetch_waker(services_.fetch_purgatory), {topic, partition}, m.producer_id,
                                  m.producer_epoch, m.transaction_result, m.coordinator_epoch, m.transaction_version);
  if (e == ErrorCode::kNone)  // an operator's action (kafka-transactions abort): worth a line
    api_log().info("WriteTxnMarkers wrote {} for producer {} epoch {} on {}-{}",
                   m.transaction_result ? "COMMIT" : "ABORT", m.producer_id, m.producer_epoch, escaped(topic),
                   partition);
  return e;
}

void WriteTxnMarkersHandler::handle(ApiRequest& request, WriteTxnMarkersRequest& body, Responder& out) {
  if (!authorized_cluster(services_, request, AclOperation::kClusterAction)) {  // as KafkaApis
    out.send(error_response(body, ErrorCode::kClusterAuthorizationFailed));
    return;
  }
  auto pending = std::make_shared<Pending>(out);
  struct Deferred {
    PartitionResult* slot;
    const WriteTxnMarkersRequest::WritableTxnMarker* marker;
    int32_t partition;
  };
  std::vector<Deferred> deferred;
  pending->resp = mirror(body, [&](const auto& m, const std::string& topic, int32_t p) {
    if (topic != txn::kOffsetsTopic) return append(m, topic, p);
    return services_.txn_offsets ? ErrorCode::kNone : ErrorCode::kUnknownTopicOrPartition;
  });
  // Second pass: __consumer_offsets partitions (their slots are stable now).
  for (size_t i = 0; i < body.markers.size(); ++i)
    for (size_t j = 0; j < body.markers[i].topics.size(); ++j) {
      if (body.markers[i].topics[j].name != txn::kOffsetsTopic || !services_.txn_offsets) continue;
      auto& parts = pending->resp.markers[i].topics[j].partitions;
      for (auto& slot : parts) deferred.push_back({&slot, &body.markers[i], slot.partition_index});
    }
  pending->left += static_cast<int>(deferred.size());
  for (const auto& d : deferred)
    services_.txn_offsets->on_marker(d.marker->producer_id, d.marker->producer_epoch, d.marker->transaction_result,
                                     d.partition, [pending, slot = d.slot](ErrorCode e) {
                                       slot->error_code = code(e);
                                       pending->release();
                                     });
  pending->release();
}

WriteTxnMarkersResponse WriteTxnMarkersHandler::error_response(const WriteTxnMarkersRequest& body, ErrorCode error) {
  return mirror(body, [&](const auto&, const std::string&, int32_t) { return error; });
}

}  // namespace skiff::api
