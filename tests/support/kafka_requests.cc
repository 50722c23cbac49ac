#include "tests/support/kafka_requests.h"

#include <stdexcept>

#include "protocol/frame.h"
#include "protocol/generated/create_topics_request.h"
#include "protocol/generated/create_topics_response.h"
#include "protocol/generated/fetch_request.h"
#include "protocol/generated/fetch_response.h"
#include "protocol/generated/produce_request.h"
#include "protocol/generated/produce_response.h"

namespace skiff::test {

namespace {
constexpr int16_t kCreateTopicsVersion = 5;
constexpr int16_t kProduceVersion = 9;
constexpr int16_t kFetchVersion = 11;

template <class Resp>
Resp decode_response(const std::vector<uint8_t>& frame, int16_t version) {
  return protocol::decode_response_frame<Resp>(frame, version);
}
}  // namespace

std::vector<uint8_t> KafkaRequests::round_trip(const std::vector<uint8_t>& frame) {
  if (!c_.send_raw(frame.data(), frame.size())) throw std::runtime_error("send failed");
  auto resp = c_.read_frame();
  if (!resp) throw std::runtime_error("no response");
  return *resp;
}

std::map<std::string, int16_t> KafkaRequests::create_topics(const std::vector<std::string>& names, int32_t partitions) {
  protocol::RequestHeader h;
  h.client_id = "skiff-test";
  h.correlation_id = ++correlation_;
  protocol::CreateTopicsRequest req;
  req.timeout_ms = 600000;
  for (const auto& n : names) {
    protocol::CreateTopicsRequest::CreatableTopic t;
    t.name = n;
    t.num_partitions = partitions;
    t.replication_factor = 1;
    req.topics.push_back(t);
  }
  auto resp = decode_response<protocol::CreateTopicsResponse>(
      round_trip(protocol::encode_request_frame(h, kCreateTopicsVersion, req)), kCreateTopicsVersion);
  std::map<std::string, int16_t> out;
  for (const auto& t : resp.topics) out[t.name] = t.error_code;
  return out;
}

std::map<int32_t, int16_t> KafkaRequests::produce(const std::string& topic, const std::vector<int32_t>& partitions,
                                                  const std::vector<uint8_t>& batch,
                                                  std::map<int32_t, int64_t>* offsets) {
  protocol::RequestHeader h;
  h.client_id = "skiff-test";
  h.correlation_id = ++correlation_;
  protocol::ProduceRequest req;
  req.acks = 1;
  req.timeout_ms = 30000;
  protocol::ProduceRequest::TopicProduceData td;
  td.name = topic;
  for (int32_t p : partitions) {
    protocol::ProduceRequest::PartitionProduceData pd;
    pd.index = p;
    pd.records = protocol::Records::bytes(batch);
    td.partition_data.push_back(pd);
  }
  req.topic_data.push_back(td);
  auto frame = round_trip(protocol::encode_request_frame(h, kProduceVersion, req));
  auto resp = decode_response<protocol::ProduceResponse>(frame, kProduceVersion);
  std::map<int32_t, int16_t> out;
  for (const auto& t : resp.responses) {
    for (const auto& p : t.partition_responses) {
      out[p.index] = p.error_code;
      if (offsets) (*offsets)[p.index] = p.base_offset;
    }
  }
  return out;
}

std::map<int32_t, KafkaRequests::FetchedPartition> KafkaRequests::fetch(const std::string& topic,
                                                                        const std::vector<int32_t>& partitions,
                                                                        int64_t offset, int32_t partition_max_bytes) {
  protocol::RequestHeader h;
  h.client_id = "skiff-test";
  h.correlation_id = ++correlation_;
  protocol::FetchRequest req;
  req.max_wait_ms = 0;
  req.min_bytes = 0;
  req.max_bytes = 64 << 20;
  protocol::FetchRequest::FetchTopic ft;
  ft.topic = topic;
  for (int32_t p : partitions) {
    protocol::FetchRequest::FetchPartition fp;
    fp.partition = p;
    fp.fetch_offset = offset;
    fp.partition_max_bytes = partition_max_bytes;
    ft.partitions.push_back(fp);
  }
  req.topics.push_back(ft);
  auto frame = round_trip(protocol::encode_request_frame(h, kFetchVersion, req));
  auto resp = decode_response<protocol::FetchResponse>(frame, kFetchVersion);
  std::map<int32_t, FetchedPartition> out;
  for (const auto& t : resp.responses) {
    for (const auto& p : t.partitions) {
      auto data = p.records.data();
      out[p.partition_index] = {p.error_code, p.high_watermark, {data.begin(), data.end()}};
    }
  }
  return out;
}

}  // namespace skiff::test
