// SaslSession: the SASL state of one connection on a SASL_PLAINTEXT or
// SASL_SSL listener. The Connection (Processor thread) reads it before
// taking each request: which requests may pass, whether the next frame is a
// raw SASL token (SaslHandshake v0), whether the session has expired
// (connections.max.reauth.ms), and the principal once authenticated. The
// SaslHandshake and SaslAuthenticate handlers (handler threads) move it on.
//
// Stages, as Kafka's SaslServerAuthenticator:
//   kHandshake      only ApiVersions and SaslHandshake are taken
//   kAuthenticate   SaslHandshake v1 chose a mechanism: SaslAuthenticate requests
//   kRawToken       SaslHandshake v0 chose one: frames are bare SASL tokens
//   kAuthenticated  any request; SaslHandshake starts a re-authentication
//                   (KIP-368), whose principal must stay the same
//
// Thread rules: every field under mu_. A connection has one request in
// flight, so one handler at a time changes a session, and the Processor
// reads it only between requests; the mutex makes those hand-overs visible.
// `exchange` is the mechanism's state (an sasl::SaslServer), opaque here.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>

namespace skiff::network {

class SaslSession {
 public:
  enum class Stage : uint8_t { kHandshake, kAuthenticate, kRawToken, kAuthenticated };
  using Clock = std::chrono::steady_clock;

  struct State {
    Stage stage = Stage::kHandshake;
    std::string mechanism;             // chosen by SaslHandshake
    std::string principal;             // "User:<name>" once authenticated (kept while re-authenticating)
    bool token_authenticated = false;  // with a delegation token (Kafka's KafkaPrincipal.tokenAuthenticated)
    Clock::time_point expires_at = Clock::time_point::max();  // re-authenticate by then
    std::shared_ptr<void> exchange;                           // the mechanism's exchange in progress
  };

  State get() const {
    std::lock_guard lock(mu_);
    return state_;
  }
  void set(State s) {
    std::lock_guard lock(mu_);
    state_ = std::move(s);
  }
  // What the Connection needs before each request, without the strings.
  struct Gate {
    Stage stage;
    Clock::time_point expires_at;
    uint64_t generation;  // changes whenever the principal may have
  };
  Gate gate() const {
    std::lock_guard lock(mu_);
    return {state_.stage, state_.expires_at, generation_};
  }
  std::string principal() const {
    std::lock_guard lock(mu_);
    return state_.principal;
  }
  bool token_authenticated() const {
    std::lock_guard lock(mu_);
    return state_.token_authenticated;
  }
  void set_authenticated(std::string principal, Clock::time_point expires_at, bool token_authenticated = false) {
    std::lock_guard lock(mu_);
    state_.stage = Stage::kAuthenticated;
    state_.principal = std::move(principal);
    state_.token_authenticated = token_authenticated;
    state_.expires_at = expires_at;
    state_.exchange.reset();
    ++generation_;
  }

 private:
  mutable std::mutex mu_;
  State state_;
  uint64_t generation_ = 0;
};

}  // namespace skiff::network
