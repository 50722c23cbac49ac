// InProcessClient: the web console's Kafka client, in-process. Each call
// encodes an ordinary Kafka request (generated codec), hands it to the
// broker's RequestHandler (KafkaApis) as if a connection on `listener` had
// sent it as `principal`, waits for the answer and decodes it. So the
// console goes through the same validation, ACLs and quotas as any client,
// and needs no socket of its own.
//
// Threads: a call runs the handler on the caller's thread (the HTTP thread);
// an answer that a handler parks comes back on another thread through the
// InProcessSender, which outlives every request given to the handler (owned
// by the ConsoleService, destroyed after KafkaApis). One InProcessClient per
// HTTP request; its decoded responses (record views) live as long as it.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <map>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "network/request.h"
#include "protocol/frame.h"

namespace skiff::client {

// A failed console call: the HTTP status and the error shape of
// docs/console-api.md ({"error", "error_code", "message"}).
struct ClientError : std::runtime_error {
  ClientError(int status, std::string error, int error_code, const std::string& message)
      : std::runtime_error(message), status(status), error(std::move(error)), error_code(error_code) {}
  int status;
  std::string error;  // Kafka's error name, or BAD_REQUEST, NOT_FOUND, ...
  int error_code;     // Kafka's code, or -1
};

// Throws the ClientError for Kafka error `code` (no-op for 0), with the
// status docs/console-api.md gives it.
void throw_if_kafka_error(int16_t code, const std::optional<std::string>& message = std::nullopt);

// Answers by correlation id; an answer nobody waits for any more (timed
// out) is dropped.
class InProcessSender : public network::ResponseSender {
 public:
  void send_response(network::Response response) override;
  // The answer to `correlation_id`, or nullopt after `timeout`.
  std::optional<network::Response> wait(int32_t correlation_id, std::chrono::milliseconds timeout);
  void expect(int32_t correlation_id);

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  std::map<int32_t, std::optional<network::Response>> pending_;
};

struct ClientIdentity {
  std::string listener;                     // the listener the requests are said to arrive on
  std::string principal;                    // "User:<name>"
  std::string client_id = "skiff-console";  // the requests' client.id (quotas, logs, metrics)
};

class InProcessClient {
 public:
  InProcessClient(network::RequestHandler& handler, InProcessSender& sender, ClientIdentity identity)
      : handler_(handler), sender_(sender), identity_(std::move(identity)) {}

  template <class Resp, class Req>
  Resp call(const Req& body, int16_t version) {
    const int32_t correlation = next_correlation();
    protocol::RequestHeader header;
    header.correlation_id = correlation;
    header.client_id = identity_.client_id;
    return protocol::decode_response_frame<Resp>(
        exchange(protocol::encode_request_frame(header, version, body), correlation), version);
  }

 private:
  static int32_t next_correlation();
  // Sends one request frame (with its size prefix); the response frame's
  // bytes after the size prefix, kept for the client's life.
  const std::vector<uint8_t>& exchange(std::vector<uint8_t> frame, int32_t correlation);

  network::RequestHandler& handler_;
  InProcessSender& sender_;
  ClientIdentity identity_;
  std::deque<std::vector<uint8_t>> frames_;
};

}  // namespace skiff::client
