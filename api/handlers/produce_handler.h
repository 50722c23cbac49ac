// Produce (key 0): advertised 0-11 (old librdkafka probes v0 to enable
// compression), served 3-11 (magic 2 record batches); v0-2 are answered with
// UNSUPPORTED_VERSION as Apache Kafka 4 does.
//
// Each partition's batches are appended as they arrived: the log validates
// them (CRC, sizes, magic, max.message.bytes, timestamps) and assigns offsets
// by rewriting the base offset in place, so record data is never copied or
// decompressed. acks 0, 1 and -1 are served (on one node, -1 = 1); with
// acks=0 an error closes the connection, as Kafka does.
#pragma once

#include "api/api_handler.h"
#include "api/broker_services.h"
#include "api/protocol/generated/produce_request.h"
#include "api/protocol/generated/produce_response.h"

namespace skiff::api {

class ProduceHandler : public TypedApiHandler<protocol::ProduceRequest, protocol::ProduceResponse> {
 public:
  explicit ProduceHandler(BrokerServices& services)
      : TypedApiHandler(protocol::ProduceRequest::kApiKey, 0, 11, /*min_served=*/3), services_(services) {}

 protected:
  void handle(ApiRequest& request, protocol::ProduceRequest& body, Responder& out) override;
  protocol::ProduceResponse error_response(const protocol::ProduceRequest& body, ErrorCode error) override;

 private:
  protocol::ProduceResponse::PartitionProduceResponse append_partition(
      const std::string& topic, protocol::ProduceRequest::PartitionProduceData& data, int16_t version);
  BrokerServices& services_;
};

}  // namespace skiff::api
