// Responder: how a handler answers its request, now or later (a delayed
// operation may keep it and answer from another thread). Exactly one of
// send / send_nothing / close must be called per request.
//
// It carries the request's times (network::RequestTimes) into the Response.
// Copying or moving it is what a handler does to answer later, so the first
// copy or move stamps the time the request was parked: the request metrics
// split the handler's own time (LocalTimeMs) from the wait (RemoteTimeMs).
#pragma once

#include <chrono>
#include <string>

#include "api/api_request.h"
#include "api/protocol/frame.h"
#include "network/request.h"

namespace skiff::api {

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
        times_(parked(o.times_)) {}
  Responder(Responder&& o) noexcept
      : sender_(o.sender_),
        context_(std::move(o.context_)),
        correlation_id_(o.correlation_id_),
        api_version_(o.api_version_),
        times_(parked(o.times_)) {}
  Responder& operator=(const Responder&) = delete;
  Responder& operator=(Responder&&) = delete;

  // Encodes `body` at the request's version with the right response header.
  template <class Body>
  void send(const Body& body) {
    send_at_version(body, api_version_);
  }
  template <class Body>
  void send_at_version(const Body& body, int16_t version) {
    network::Response r = response(network::Response::Action::kSend);
    r.chunks = protocol::encode_response_frame(correlation_id_, version, body);
    sender_->send_response(std::move(r));
  }
  // Sends `body`, then takes no further request and closes the connection
  // after `delay` (a failed authentication, as Kafka delays its close).
  template <class Body>
  void send_then_close(const Body& body, std::chrono::milliseconds delay) {
    network::Response r = response(network::Response::Action::kSendThenClose);
    r.close_delay = delay;
    r.chunks = protocol::encode_response_frame(correlation_id_, api_version_, body);
    sender_->send_response(std::move(r));
  }
  // acks=0: no response, but the connection is unmuted.
  void send_nothing() { sender_->send_response(response(network::Response::Action::kNoOp)); }
  void close(std::string reason) { sender_->send_response(network::Response::close(context_, std::move(reason))); }

  int16_t api_version() const { return api_version_; }

 private:
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
};

}  // namespace skiff::api
