// FetchReader: the reading half of Fetch, shared by the immediate answer and
// the delayed one. It resolves the requested partitions once (names or topic
// ids) and can then, as often as needed, count the bytes available or build
// the response, whose record data are file regions of the segments (written
// to the socket with sendfile, never copied).
//
// Size limits as Kafka applies them (KIP-74): per partition
// partition_max_bytes, in total max_bytes, except that the first batch of
// the first partition with data is returned whole even when larger.
// Isolation (KIP-98): read_committed returns batches only below the last
// stable offset, with the aborted transactions overlapping them; both
// levels report the partition's LSO.
// Tiered storage: a partition whose fetch offset is below its log's local
// start is read from remote storage (api/remote_reads.h): plan_remote_reads()
// lists those reads, and read() takes their results (bytes, not file
// regions), in the same order; one without a result (not done in time)
// answers no records and no error, as Kafka's expired DelayedRemoteFetch.
// Thread-safe for concurrent reads (logs are); one owner at a time.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "api/api_request.h"
#include "api/broker_services.h"
#include "api/remote_reads.h"
#include "log/log.h"
#include "protocol/error_codes.h"
#include "protocol/generated/fetch_request.h"
#include "protocol/generated/fetch_response.h"

namespace skiff::api {

class FetchReader {
 public:
  // `who` is checked for READ on each topic (a follower's fetch: CLUSTER_ACTION
  // on the cluster); refused topics answer TOPIC_AUTHORIZATION_FAILED.
  FetchReader(BrokerServices& services, const protocol::FetchRequest& request, const ApiRequest& who);

  // Record bytes the fetch would return now (capped at what min_bytes needs).
  size_t available_bytes() const;
  // True when some partition can only be answered with an error.
  bool has_error() const { return has_error_; }
  // The remote reads this fetch needs now (none without remote storage);
  // numbers them for read(). Call once, before read().
  std::vector<RemoteReadRequest> plan_remote_reads();
  // `remote`: the planned reads' results by number (nullopt: not done).
  using RemoteResults = std::vector<std::optional<RemoteReadResult>>;
  protocol::FetchResponse read(const RemoteResults* remote = nullptr) const;
  // Watch keys of the partitions that resolved to a log.
  std::vector<std::string> watch_keys() const;

 private:
  struct Partition {
    int32_t index;
    int64_t fetch_offset;
    int32_t max_bytes;
    std::shared_ptr<storage::Log> log;
    ErrorCode error;
    int remote_slot = -1;  // its number in plan_remote_reads(); -1: read locally
  };
  struct Topic {
    std::string name;
    protocol::Uuid id;
    Uuid log_topic_id;  // the topic's id (remote reads name it; a fetch before v13 has none)
    std::vector<Partition> partitions;
  };

  // read_committed: the last stable offset; read_uncommitted: no bound (the
  // high watermark is the log end on a single node).
  storage::Offset read_bound(const storage::Log& log) const;
  // One partition's batches into `pd` (its records, ends, aborted
  // transactions, or the read's error), within what `remaining` of the
  // response allows; `have_data` once the response holds records.
  void read_partition(const Partition& p, size_t& remaining, bool& have_data,
                      protocol::FetchResponse::PartitionData& pd) const;
  // The same from a remote read's result.
  void read_remote_partition(const Partition& p, const RemoteReadResult& result, size_t& remaining, bool& have_data,
                             protocol::FetchResponse::PartitionData& pd) const;

  std::vector<Topic> topics_;
  size_t max_bytes_;
  size_t min_bytes_;
  bool read_committed_;
  bool has_error_ = false;
  bool remote_enabled_;  // services.remote_reads is set
};

}  // namespace skiff::api
