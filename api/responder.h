// Responder: how a handler answers its request, now or later (a delayed
// operation may keep it and answer from another thread). Exactly one of
// send / send_nothing / close must be called per request.
//
// It carries the request's times (network::RequestTimes) into the Response.
// Copying or moving it is what a handler does to answer later, so the first
// copy or move stamps the time the request was parked: the request metrics
// split the handler's own time (LocalTimeMs) from the wait (RemoteTimeMs).
//
// Client quotas (api/quota/quota_manager.h): a handler that recorded bytes
// against a byte-rate quota passes the throttle to throttle(); a request
// with a request_percentage quota carries its client (set_request_quota),
// and send() records the handler thread's time. The larger throttle goes in
// the body's throttle_time_ms and mutes the connection (Response::throttle).
#pragma once

#include <algorithm>
#include <chrono>
#include <memory>
#include <string>

#include "api/api_request.h"
#include "api/error_tally.h"
#include "network/request.h"
#include "protocol/frame.h"

namespace skiff::api {

namespace quota {
class QuotaManager;
}

// The client a request-time quota is recorded for.
struct RequestQuotaClient {
  quota::QuotaManager* manager = nullptr;
  std::string user;  // the principal's name
  std::string client_id;
};
// Records the request's handler-thread time so far (from times.dequeued to
// now, or to when it was parked); the throttle in ms (api/quota/quota_manager.cc).
int32_t record_request_time(const RequestQuotaClient& client, const network::RequestTimes& times);

class Responder {
 public:
  Responder(network::ResponseSender& sender, network::RequestContext context, int32_t correlation_id,
            int16_t api_version, network::RequestTimes times = {})
      : sender_(&sender),
        context_(std::move(context)),
        correlation_id_(correlation_id),
        api_version_(api_version),
        times_(times) {}
  Responder(const Responder& o)
      : sender_(o.sender_),
        context_(o.context_),
        correlation_id_(o.correlation_id_),
        api_version_(o.api_version_),
        times_(parked(o.times_)),
        throttle_ms_(o.throttle_ms_),
        request_quota_(o.request_quota_),
        errors_(o.errors_) {}
  Responder(Responder&& o) noexcept
      : sender_(o.sender_),
        context_(std::move(o.context_)),
        correlation_id_(o.correlation_id_),
        api_version_(o.api_version_),
        times_(parked(o.times_)),
        throttle_ms_(o.throttle_ms_),
        request_quota_(std::move(o.request_quota_)),
        errors_(o.errors_) {}
  Responder& operator=(const Responder&) = delete;
  Responder& operator=(Responder&&) = delete;

  // Encodes `body` at the request's version with the right response header.
  template <class Body>
  void send(const Body& body) {
    send_at_version(body, api_version_);
  }
  template <class Body>
  void send_at_version(const Body& body, int16_t version) {
    count_errors(body);
    network::Response r = response(network::Response::Action::kSend);
    const int32_t throttle = final_throttle();
    if constexpr (requires(Body b) { b.throttle_time_ms = int32_t{0}; }) {
      if (throttle > body.throttle_time_ms) {  // rare: copy to set the field
        Body throttled = body;
        throttled.throttle_time_ms = throttle;
        r.throttle = std::chrono::milliseconds(throttle);
        r.chunks = protocol::encode_response_frame(correlation_id_, version, throttled);
        sender_->send_response(std::move(r));
        return;
      }
    }
    r.throttle = std::chrono::milliseconds(throttle);
    r.chunks = protocol::encode_response_frame(correlation_id_, version, body);
    sender_->send_response(std::move(r));
  }
  // Sends `body`, then takes no further request and closes the connection
  // after `delay` (a failed authentication, as Kafka delays its close).
  template <class Body>
  void send_then_close(const Body& body, std::chrono::milliseconds delay) {
    count_errors(body);
    network::Response r = response(network::Response::Action::kSendThenClose);
    r.close_delay = delay;
    r.chunks = protocol::encode_response_frame(correlation_id_, api_version_, body);
    sender_->send_response(std::move(r));
  }
  // acks=0: no response, but the connection is unmuted (after a byte-rate
  // throttle; Kafka exempts acks=0 from the request quota).
  void send_nothing() {
    network::Response r = response(network::Response::Action::kNoOp);
    r.throttle = std::chrono::milliseconds(throttle_ms_);
    sender_->send_response(std::move(r));
  }
  void close(std::string reason) { sender_->send_response(network::Response::close(context_, std::move(reason))); }

  int16_t api_version() const { return api_version_; }
  // A byte-rate quota's throttle for this response (the larger one wins).
  void throttle(int32_t ms) { throttle_ms_ = std::max(throttle_ms_, ms); }
  void set_request_quota(std::shared_ptr<const RequestQuotaClient> client) { request_quota_ = std::move(client); }
  // Records the handler time so far against the request_percentage quota
  // now, not when the answer is sent, and keeps its throttle: what Kafka's
  // fetch does before building its answer (a throttled fetch is answered
  // empty). The answer then records nothing more. 0 without such a quota.
  int32_t settle_request_quota() {
    if (!request_quota_) return 0;
    const int32_t ms = record_request_time(*request_quota_, times_);
    request_quota_.reset();
    throttle(ms);
    return ms;
  }
  // Where the response's error codes are counted (null: not counted).
  void set_error_observer(ErrorObserver* observer) { errors_ = observer; }
  const network::RequestContext& context() const { return context_; }

 private:
  template <class Body>
  void count_errors(const Body& body) const {
    if constexpr (requires { body.for_each_error_code([](int16_t) {}); }) {
      if (!errors_ || times_.api_key < 0) return;
      ErrorTally tally(*errors_, times_.api_key);
      body.for_each_error_code(tally);
    }
  }
  int32_t final_throttle() const {
    return request_quota_ ? std::max(throttle_ms_, record_request_time(*request_quota_, times_)) : throttle_ms_;
  }
  static network::RequestTimes parked(network::RequestTimes t) {
    if (t.api_key >= 0 && t.parked == network::RequestTimes::Clock::time_point{})
      t.parked = network::RequestTimes::Clock::now();
    return t;
  }
  network::Response response(network::Response::Action action) const {
    network::Response r;
    r.context = context_;
    r.action = action;
    r.times = times_;
    if (r.times.api_key >= 0) r.times.answered = network::RequestTimes::Clock::now();
    return r;
  }

  network::ResponseSender* sender_;
  network::RequestContext context_;
  int32_t correlation_id_;
  int16_t api_version_;
  network::RequestTimes times_;
  int32_t throttle_ms_ = 0;
  std::shared_ptr<const RequestQuotaClient> request_quota_;  // null: no request_percentage quota applies
  ErrorObserver* errors_ = nullptr;
};

}  // namespace skiff::api
