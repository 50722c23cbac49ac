// Readiness: where the broker is in its life, for GET /readyz
// (server/http_routes.h). KafkaServer moves it forward during startup and to
// kShuttingDown first thing in shutdown; ready means the logs are loaded
// and the Kafka listeners accept connections.
// Threads: set() from the controlling thread, state() from any (an atomic).
#pragma once

#include <atomic>
#include <cstdint>
#include <string_view>

namespace skiff::server {

class Readiness {
 public:
  enum class State : uint8_t { kStarting, kLoadingLogs, kStartingListeners, kReady, kShuttingDown };

  void set(State s) { state_.store(s, std::memory_order_release); }
  State state() const { return state_.load(std::memory_order_acquire); }

  // Why the broker is not ready, e.g. "loading logs"; "" when it is.
  static std::string_view reason(State s) {
    switch (s) {
      case State::kStarting:
        return "starting";
      case State::kLoadingLogs:
        return "loading logs";
      case State::kStartingListeners:
        return "starting the Kafka listeners";
      case State::kReady:
        return "";
      case State::kShuttingDown:
        return "shutting down";
    }
    return "unknown";
  }

 private:
  std::atomic<State> state_{State::kStarting};
};

}  // namespace skiff::server
