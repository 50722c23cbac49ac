#include "api/handlers/fetch_handler.h"

#include "api/fetch_reader.h"
#include "api/purgatory.h"
#include "api/topic_metrics.h"

namespace skiff::api {
namespace {

// Reads the fetch's records now and answers; counts them per topic.
void answer(const FetchReader& reader, Responder& out, TopicMetrics* metrics) {
  auto resp = reader.read();
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
  DelayedFetch(FetchReader reader, Responder out, size_t min_bytes, TopicMetrics* metrics)
      : reader_(std::move(reader)), out_(std::move(out)), min_bytes_(min_bytes), metrics_(metrics) {}

 protected:
  bool ready() override { return reader_.available_bytes() >= min_bytes_; }
  void complete() override { answer(reader_, out_, metrics_); }

 private:
  FetchReader reader_;
  Responder out_;
  size_t min_bytes_;
  TopicMetrics* metrics_;
};

}  // namespace

void FetchHandler::handle(ApiRequest& request, protocol::FetchRequest& body, Responder& out) {
  if (body.session_id != 0) {
    out.send(error_response(body, ErrorCode::kFetchSessionIdNotFound));
    return;
  }
  FetchReader reader(services_, body, request);
  const size_t min_bytes = static_cast<size_t>(std::max(0, body.min_bytes));
  const bool can_wait =
      body.max_wait_ms > 0 && services_.fetch_purgatory && !reader.has_error() && !reader.watch_keys().empty();
  if (!can_wait || reader.available_bytes() >= min_bytes) {
    answer(reader, out, services_.topic_metrics);
    return;
  }
  auto keys = reader.watch_keys();
  auto op = std::make_shared<DelayedFetch>(std::move(reader), std::move(out), min_bytes, services_.topic_metrics);
  services_.fetch_purgatory->add(std::move(op), std::move(keys), std::chrono::milliseconds(body.max_wait_ms));
}

protocol::FetchResponse FetchHandler::error_response(const protocol::FetchRequest&, ErrorCode error) {
  protocol::FetchResponse resp;
  resp.error_code = code(error);
  return resp;
}

}  // namespace skiff::api
