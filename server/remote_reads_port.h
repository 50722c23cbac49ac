// RemoteReadsPort: api/'s RemoteReads (how Fetch and ListOffsets reach data
// in remote storage only) bound to the remote log reader (remote/reader/).
// It translates requests and results (the store's failures become
// KAFKA_STORAGE_ERROR, which every client retries; an offset no remote
// segment holds, OFFSET_OUT_OF_RANGE) and reads remote.fetch.max.wait.ms and
// remote.list.offsets.request.timeout.ms from the live broker config (both
// are dynamic). remote.log.manager.fetch.max.bytes.per.second bounds the
// bytes read from the store (Kafka's RLM fetch quota, KIP-956): over it, a
// read is not started and its partition answers no records, no error.
// Threads: called from handler threads; the reader calls back on its pool.
#pragma once

#include <mutex>

#include "api/remote_reads.h"
#include "common/quota_rate.h"
#include "config/broker_config.h"
#include "config/dynamic_broker_config.h"
#include "remote/reader/remote_log_reader.h"

namespace skiff::server {

class RemoteReadsPort : public api::RemoteReads {
 public:
  // `dynamic` may be null (the static config's values then).
  RemoteReadsPort(remote::RemoteLogReader& reader, const config::BrokerConfig& config,
                  const config::DynamicBrokerConfig* dynamic)
      : reader_(reader), config_(config), dynamic_(dynamic) {}

  bool read(api::RemoteReadRequest request, std::function<void(api::RemoteReadResult)> done) override;
  bool offset_for_timestamp(api::RemotePartition partition, int64_t timestamp, int64_t start_offset,
                            std::function<void(api::RemoteOffsetResult)> done) override;
  std::chrono::milliseconds fetch_max_wait() const override;
  std::chrono::milliseconds list_offsets_timeout() const override;

 private:
  const config::TieredStorageSettings& settings(std::shared_ptr<const config::BrokerConfig>& hold) const;

  remote::RemoteLogReader& reader_;
  const config::BrokerConfig& config_;
  const config::DynamicBrokerConfig* dynamic_;
  // Bytes read from the store over Kafka's quota window (11 x 1 s).
  bool fetch_quota_exceeded();
  void record_fetched(size_t bytes);
  std::mutex quota_mu_;  // leaf: guards fetched_
  QuotaRate fetched_;
};

}  // namespace skiff::server
