#include "server/remote_reads_port.h"

namespace skiff::server {
namespace {

int64_t steady_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

remote::TopicIdPartition to_remote(const api::RemotePartition& p) {
  remote::TopicIdPartition tp;
  tp.topic_id = p.topic_id;
  tp.topic = p.topic;
  tp.partition = p.partition;
  return tp;
}

api::RemoteReadResult to_api(remote::RemoteFetchResult r) {
  api::RemoteReadResult out;
  if (r.error) {
    out.error = ErrorCode::kKafkaStorageError;
    return out;
  }
  if (r.offset_out_of_range) {
    out.error = ErrorCode::kOffsetOutOfRange;
    return out;
  }
  out.records = std::move(r.records);
  out.aborted.reserve(r.aborted.size());
  for (const auto& a : r.aborted) {
    storage::AbortedTxn t;
    t.producer_id = a.producer_id;
    t.first_offset = a.first_offset;
    out.aborted.push_back(t);
  }
  out.aborted_complete = r.aborted_complete;
  out.next_offset = r.next_offset;
  return out;
}

}  // namespace

bool RemoteReadsPort::read(api::RemoteReadRequest request, std::function<void(api::RemoteReadResult)> done) {
  if (fetch_quota_exceeded()) {  // Kafka: no remote read this time, an empty answer
    done(api::RemoteReadResult{});
    return true;
  }
  remote::RemoteFetchRequest r;
  r.tp = to_remote(request.partition);
  r.fetch_offset = request.fetch_offset;
  r.max_bytes = request.max_bytes;
  r.min_one_message = request.min_one_message;
  r.read_committed = request.read_committed;
  return reader_.submit(std::move(r), [this, done = std::move(done)](remote::RemoteFetchResult result) {
    record_fetched(result.records.size());
    done(to_api(std::move(result)));
  });
}

bool RemoteReadsPort::fetch_quota_exceeded() {
  std::shared_ptr<const config::BrokerConfig> hold;
  const int64_t bound = settings(hold).fetch_max_bytes_per_second;
  if (bound == config::TieredStorageSettings::kUnlimited) return false;
  std::lock_guard lock(quota_mu_);
  return fetched_.measure(steady_ms()) > static_cast<double>(bound);
}

void RemoteReadsPort::record_fetched(size_t bytes) {
  std::lock_guard lock(quota_mu_);
  fetched_.record(static_cast<double>(bytes), steady_ms());
}

bool RemoteReadsPort::offset_for_timestamp(api::RemotePartition partition, int64_t timestamp, int64_t start_offset,
                                           std::function<void(api::RemoteOffsetResult)> done) {
  return reader_.submit_offset_for_timestamp(
      to_remote(partition), timestamp, start_offset,
      [done = std::move(done)](remote::RsmResult<std::optional<remote::RemoteLogReader::TimestampAndOffset>> found) {
        api::RemoteOffsetResult out;
        if (!found)
          out.error = ErrorCode::kKafkaStorageError;
        else if (*found)
          out.timestamp_and_offset = std::make_pair((*found)->timestamp, (*found)->offset);
        done(out);
      });
}

const config::TieredStorageSettings& RemoteReadsPort::settings(
    std::shared_ptr<const config::BrokerConfig>& hold) const {
  if (!dynamic_) return config_.tiered_storage;
  hold = dynamic_->current();
  return hold->tiered_storage;
}

std::chrono::milliseconds RemoteReadsPort::fetch_max_wait() const {
  std::shared_ptr<const config::BrokerConfig> hold;
  return std::chrono::milliseconds(settings(hold).fetch_max_wait_ms);
}

std::chrono::milliseconds RemoteReadsPort::list_offsets_timeout() const {
  std::shared_ptr<const config::BrokerConfig> hold;
  return std::chrono::milliseconds(settings(hold).list_offsets_timeout_ms);
}

}  // namespace skiff::server
