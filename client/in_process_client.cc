#include "client/in_process_client.h"

#include <unistd.h>

#include <atomic>

#include "common/byte_order.h"
#include "protocol/error_codes.h"
#include "protocol/error_names.h"

namespace skiff::client {
namespace {

using skiff::ErrorCode;

constexpr auto kAnswerTimeout = std::chrono::seconds(10);

int status_of(int16_t code) {
  switch (static_cast<ErrorCode>(code)) {
    case ErrorCode::kUnknownTopicOrPartition:
    case ErrorCode::kGroupIdNotFound:
      return 404;
    case ErrorCode::kTopicAlreadyExists:
    case ErrorCode::kNonEmptyGroup:
      return 409;
    case ErrorCode::kTopicAuthorizationFailed:
    case ErrorCode::kGroupAuthorizationFailed:
    case ErrorCode::kClusterAuthorizationFailed:
      return 403;
    case ErrorCode::kUnknownServerError:
    case ErrorCode::kCoordinatorLoadInProgress:
      return 500;
    default:
      return 400;
  }
}

// The response bytes after the 4-byte size prefix, file regions read back.
std::vector<uint8_t> flatten(const network::Response& r) {
  std::vector<uint8_t> out;
  for (const auto& chunk : r.chunks) {
    if (const auto* bytes = std::get_if<std::vector<uint8_t>>(&chunk)) {
      out.insert(out.end(), bytes->begin(), bytes->end());
      continue;
    }
    const auto& region = std::get<FileRegion>(chunk);
    const size_t at = out.size();
    out.resize(at + region.length);
    size_t done = 0;
    while (done < region.length) {
      const ssize_t n = pread(region.fd, out.data() + at + done, region.length - done,
                              static_cast<off_t>(region.offset + static_cast<int64_t>(done)));
      if (n <= 0) throw ClientError(500, "KAFKA_STORAGE_ERROR", 56, "could not read the log");
      done += static_cast<size_t>(n);
    }
  }
  if (out.size() < 4) throw ClientError(500, "UNKNOWN_SERVER_ERROR", -1, "empty response");
  out.erase(out.begin(), out.begin() + 4);
  return out;
}

}  // namespace

void throw_if_kafka_error(int16_t code, const std::optional<std::string>& message) {
  if (code == 0) return;
  const std::string name(protocol::error_name(code));
  throw ClientError(status_of(code), name, code, message && !message->empty() ? *message : name);
}

void InProcessSender::expect(int32_t correlation_id) {
  std::lock_guard lock(mu_);
  pending_[correlation_id];
}

void InProcessSender::send_response(network::Response response) {
  std::lock_guard lock(mu_);
  // The correlation id is the first field of every response header.
  int32_t correlation = -1;
  if (!response.chunks.empty()) {
    if (const auto* bytes = std::get_if<std::vector<uint8_t>>(&response.chunks.front()); bytes && bytes->size() >= 8)
      correlation = static_cast<int32_t>(load_be32(bytes->data() + 4));
  }
  auto it = pending_.find(correlation);
  if (it == pending_.end()) {
    // A close (no bytes) answers the oldest waiter; anything else is late.
    if (response.action != network::Response::Action::kClose || pending_.empty()) return;
    it = pending_.begin();
  }
  it->second = std::move(response);
  cv_.notify_all();
}

std::optional<network::Response> InProcessSender::wait(int32_t correlation_id, std::chrono::milliseconds timeout) {
  std::unique_lock lock(mu_);
  cv_.wait_for(lock, timeout, [&] { return pending_[correlation_id].has_value(); });
  auto answer = std::move(pending_[correlation_id]);
  pending_.erase(correlation_id);
  return answer;
}

int32_t InProcessClient::next_correlation() {
  static std::atomic<int32_t> next{1};
  return next.fetch_add(1, std::memory_order_relaxed) & 0x7fffffff;
}

const std::vector<uint8_t>& InProcessClient::exchange(std::vector<uint8_t> frame, int32_t correlation) {
  network::Request request;
  request.context.listener_name = identity_.listener;
  request.context.peer_address = "127.0.0.1";
  request.context.local_address = "127.0.0.1";
  request.context.principal = identity_.principal;
  request.frame = network::Frame(frame.size() - 4);
  std::copy(frame.begin() + 4, frame.end(), request.frame.data());
  request.received_at = request.dequeued_at = std::chrono::steady_clock::now();
  sender_.expect(correlation);
  handler_.handle(std::move(request), sender_);
  auto answer = sender_.wait(correlation, kAnswerTimeout);
  if (!answer) throw ClientError(500, "REQUEST_TIMED_OUT", 7, "the broker did not answer in time");
  if (answer->action == network::Response::Action::kClose)
    throw ClientError(500, "UNKNOWN_SERVER_ERROR", -1, "the broker refused the request");
  return frames_.emplace_back(flatten(*answer));
}

}  // namespace skiff::client
