#include "api/handlers/fetch_handler.h"

#include "api/fetch_reader.h"
#include "api/purgatory.h"

namespace skiff::api {
namespace {

// A fetch waiting for data: completes when enough bytes are available (an
// append wakes it) or at its deadline, reading the logs afresh either way.
class DelayedFetch : public DelayedOperation {
 public:
  DelayedFetch(FetchReader reader, Responder out, size_t min_bytes)
      : reader_(std::move(reader)), out_(std::move(out)), min_bytes_(min_bytes) {}

 protected:
  bool ready() override { return reader_.available_bytes() >= min_bytes_; }
  void complete() override { out_.send(reader_.read()); }

 private:
  FetchReader reader_;
  Responder out_;
  size_t min_bytes_;
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
    out.send(reader.read());
    return;
  }
  auto keys = reader.watch_keys();
  auto op = std::make_shared<DelayedFetch>(std::move(reader), std::move(out), min_bytes);
  services_.fetch_purgatory->add(std::move(op), std::move(keys), std::chrono::milliseconds(body.max_wait_ms));
}

protocol::FetchResponse FetchHandler::error_response(const protocol::FetchRequest&, ErrorCode error) {
  protocol::FetchResponse resp;
  resp.error_code = code(error);
  return resp;
}

}  // namespace skiff::api
