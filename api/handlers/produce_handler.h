// Produce (key 0): advertised 0-13 (old librdkafka probes v0 to enable
// compression), served 3-13 (magic 2 record batches); v0-2 are answered with
// UNSUPPORTED_VERSION as Apache Kafka 4 does. From v13 topics are named by id
// (KIP-516): an unknown id is UNKNOWN_TOPIC_ID.
//
// Each partition's batches are appended as they arrived: the log validates
// them (CRC, sizes, magic, max.message.bytes, timestamps) and assigns offsets
// by rewriting the base offset in place, so record data is never copied or
// decompressed. acks 0, 1 and -1 are served (on one node, -1 = 1); with
// acks=0 an error closes the connection, as Kafka does.
//
// Transactional batches (Kafka 4.4's ReplicaManager.handleProduceAppend): the
// request needs a transactional id and one producer (id, epoch); the
// partitions holding them are checked by the TxnProduceGate first — Produce
// v12+ adds them to the transaction (TV2, KIP-890), older versions only
// verify that they are in it (transaction.partition.verification.enable).
// As Kafka's log, the partition answers first: an epoch older than the one it
// has seen is INVALID_PRODUCER_EPOCH, and a partition where this producer's
// transaction (same epoch) is already open appends without a check.
// The check completes later, on another thread; the request's frame and body
// move into the completion, which appends (every partition of the request,
// after the check, as Kafka) and answers. No gate: transactional produce is
// refused with TRANSACTIONAL_ID_AUTHORIZATION_FAILED.
//
// Threads: handle() on handler threads; a gate completion on whichever
// thread the gate calls it (it appends there; it never waits).
#pragma once

#include <memory>
#include <optional>

#include "api/api_handler.h"
#include "api/broker_services.h"
#include "coordinator/txn/txn_gates.h"
#include "log/producer_state.h"
#include "protocol/generated/produce_request.h"
#include "protocol/generated/produce_response.h"

namespace skiff::api {

class ProduceHandler : public TypedApiHandler<protocol::ProduceRequest, protocol::ProduceResponse> {
 public:
  explicit ProduceHandler(BrokerServices& services)
      : TypedApiHandler(protocol::ProduceRequest::kApiKey, 0, 13, /*min_served=*/3), services_(services) {}

  struct PartitionPlan;
  struct TopicPlan;
  struct Pending;

 protected:
  void handle(ApiRequest& request, protocol::ProduceRequest& body, Responder& out) override;
  protocol::ProduceResponse error_response(const protocol::ProduceRequest& body, ErrorCode error) override;

 private:
  std::vector<TopicPlan> plan(const ApiRequest& request, protocol::ProduceRequest& body);
  TopicPlan plan_topic(const ApiRequest& request, protocol::ProduceRequest::TopicProduceData& topic);
  void start_check(const std::shared_ptr<Pending>& pending);
  // Verifications a marker cleared meanwhile are taken again and re-asked.
  bool recheck_stale(const std::shared_ptr<Pending>& pending);
  // Appends every partition the plan lets through and answers.
  void finish(protocol::ProduceRequest& body, std::vector<TopicPlan>& plan, Responder& out);
  protocol::ProduceResponse::PartitionProduceResponse append_partition(
      const std::string& topic, storage::Log& log, protocol::ProduceRequest::PartitionProduceData& data,
      std::optional<storage::VerificationGuard> guard);
  BrokerServices& services_;
};

}  // namespace skiff::api
