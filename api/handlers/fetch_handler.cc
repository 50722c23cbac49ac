#include "api/handlers/fetch_handler.h"

#include <atomic>
#include <mutex>

#include "api/fetch_reader.h"
#include "api/purgatory.h"
#include "api/quota/quota_manager.h"
#include "api/remote_reads.h"
#include "api/topic_metrics.h"

namespace skiff::api {

// The consumer a consumer_byte_rate quota applies to; absent: none does.
struct FetchQuota {
  quota::QuotaManager* manager;
  std::string user;
  std::string client_id;
};

namespace {

// Counts the answer against the consumer's quotas, as Kafka's handleFetch
// does: its bytes against consumer_byte_rate and the handler time so far
// against request_percentage. Over either, the answer is an empty one that
// carries the larger throttle, and its bytes are taken back (not sent).
bool throttled(const std::optional<FetchQuota>& quota, const protocol::FetchResponse& resp, Responder& out) {
  const int32_t request_ms = out.settle_request_quota();
  if (!quota) return request_ms > 0;
  const auto bytes = static_cast<double>(resp.encoded_size(out.api_version()));
  const int32_t ms = quota->manager->record(quota::QuotaKind::kFetch, quota->user, quota->client_id, bytes);
  if (ms <= 0 && request_ms <= 0) return false;
  quota->manager->unrecord(quota::QuotaKind::kFetch, quota->user, quota->client_id, bytes);
  out.throttle(ms);
  return true;
}

// Reads the fetch's records now and answers; counts them per topic.
// `remote`: the results of the fetch's remote reads (tiered storage).
void answer(const FetchReader& reader, Responder& out, TopicMetrics* metrics, const std::optional<FetchQuota>& quota,
            const FetchReader::RemoteResults* remote = nullptr) {
  auto resp = reader.read(remote);
  if (throttled(quota, resp, out)) {
    out.send(protocol::FetchResponse{});
    return;
  }
  if (metrics) {
    for (const auto& t : resp.responses) {
      uint64_t bytes = 0;
      for (const auto& p : t.partitions) {
        if (p.error_code != 0) metrics->fetch_failed(t.topic);
        bytes += p.records.size();
      }
      if (bytes) metrics->fetched(t.topic, bytes);
    }
  }
  out.send(resp);
}

// A fetch waiting for data: completes when enough bytes are available (an
// append wakes it) or at its deadline, reading the logs afresh either way.
class DelayedFetch : public DelayedOperation {
 public:
  DelayedFetch(FetchReader reader, Responder out, size_t min_bytes, TopicMetrics* metrics,
               std::optional<FetchQuota> quota)
      : reader_(std::move(reader)),
        out_(std::move(out)),
        min_bytes_(min_bytes),
        metrics_(metrics),
        quota_(std::move(quota)) {}

 protected:
  bool ready() override { return reader_.available_bytes() >= min_bytes_; }
  void complete() override { answer(reader_, out_, metrics_, quota_); }

 private:
  FetchReader reader_;
  Responder out_;
  size_t min_bytes_;
  TopicMetrics* metrics_;
  std::optional<FetchQuota> quota_;
};

// A fetch with partitions in remote storage only (Kafka's DelayedRemoteFetch):
// their reads run on the remote reader pool, and the answer goes once all
// are done or at remote.fetch.max.wait.ms, whichever is first. A read not
// done by then answers no records for its partition (no error: the
// consumer fetches again, as from Kafka); a result arriving later is dropped.
class DelayedRemoteFetch : public DelayedOperation {
 public:
  DelayedRemoteFetch(FetchReader reader, Responder out, TopicMetrics* metrics, std::optional<FetchQuota> quota,
                     size_t reads)
      : reader_(std::move(reader)),
        out_(std::move(out)),
        metrics_(metrics),
        quota_(std::move(quota)),
        results_(reads),
        pending_(reads) {}

  // A remote read's result (any thread).
  void arrived(size_t slot, RemoteReadResult result) {
    {
      std::lock_guard lock(mu_);
      if (answered_) return;
      results_[slot] = std::move(result);
    }
    if (pending_.fetch_sub(1, std::memory_order_acq_rel) == 1) try_complete();
  }

 protected:
  bool ready() override { return pending_.load(std::memory_order_acquire) == 0; }
  void complete() override {
    FetchReader::RemoteResults results;
    {
      std::lock_guard lock(mu_);
      answered_ = true;
      results = std::move(results_);
    }
    answer(reader_, out_, metrics_, quota_, &results);
  }

 private:
  FetchReader reader_;
  Responder out_;
  TopicMetrics* metrics_;
  std::optional<FetchQuota> quota_;
  std::mutex mu_;  // leaf: guards results_ and answered_
  FetchReader::RemoteResults results_;
  bool answered_ = false;
  std::atomic<size_t> pending_;
};

// A consumer's quota (not a follower's: Skiff has none) bounds what one
// fetch may take to what one quota window allows (Kafka's
// getMaxValueInQuotaWindow), so that a fetch is never throttled for sure.
std::optional<FetchQuota> fetch_quota(BrokerServices& services, ApiRequest& request, protocol::FetchRequest& body) {
  auto* quotas = services.quotas;
  if (!quotas || !quotas->enabled(quota::QuotaKind::kFetch)) return std::nullopt;
  FetchQuota q{quotas, std::string(quota::quota_user(request.context().principal)),
               request.header.client_id.value_or("")};
  body.max_bytes = std::min(body.max_bytes, quotas->max_value_in_window(quota::QuotaKind::kFetch, q.user, q.client_id));
  body.min_bytes = std::min(body.min_bytes, body.max_bytes);
  return q;
}

}  // namespace

void FetchHandler::handle(ApiRequest& request, protocol::FetchRequest& body, Responder& out) {
  if (body.session_id != 0) {
    out.send(error_response(body, ErrorCode::kFetchSessionIdNotFound));
    return;
  }
  auto quota = fetch_quota(services_, request, body);
  FetchReader reader(services_, body, request);
  auto remote = reader.plan_remote_reads();
  if (!remote.empty() && services_.fetch_purgatory) {
    fetch_remote(std::move(reader), std::move(remote), std::move(out), std::move(quota));
    return;
  }
  const size_t min_bytes = static_cast<size_t>(std::max(0, body.min_bytes));
  const bool can_wait =
      body.max_wait_ms > 0 && services_.fetch_purgatory && !reader.has_error() && !reader.watch_keys().empty();
  if (!can_wait || reader.available_bytes() >= min_bytes) {
    answer(reader, out, services_.topic_metrics, quota);
    return;
  }
  auto keys = reader.watch_keys();
  auto op = std::make_shared<DelayedFetch>(std::move(reader), std::move(out), min_bytes, services_.topic_metrics,
                                           std::move(quota));
  services_.fetch_purgatory->add(std::move(op), std::move(keys), std::chrono::milliseconds(body.max_wait_ms));
}

void FetchHandler::fetch_remote(FetchReader reader, std::vector<RemoteReadRequest> reads, Responder out,
                                std::optional<FetchQuota> quota) {
  const size_t n = reads.size();
  auto op = std::make_shared<DelayedRemoteFetch>(std::move(reader), std::move(out), services_.topic_metrics,
                                                 std::move(quota), n);
  for (size_t slot = 0; slot < n; ++slot) {
    bool queued = services_.remote_reads->read(std::move(reads[slot]),
                                               [op, slot](RemoteReadResult r) { op->arrived(slot, std::move(r)); });
    // The reader's queue is full: a retriable error for this partition.
    if (!queued) {
      RemoteReadResult refused;
      refused.error = ErrorCode::kKafkaStorageError;
      op->arrived(slot, std::move(refused));
    }
  }
  services_.fetch_purgatory->add(std::move(op), {}, services_.remote_reads->fetch_max_wait());
}

protocol::FetchResponse FetchHandler::error_response(const protocol::FetchRequest&, ErrorCode error) {
  protocol::FetchResponse resp;
  resp.error_code = code(error);
  return resp;
}

}  // namespace skiff::api
