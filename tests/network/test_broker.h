// A SocketServer with the real RequestChannel and handler threads, but a test
// handler in place of KafkaApis: it echoes each frame back, after an optional
// delay; a frame starting with "CLOSE" is answered by closing the connection,
// one starting with "NOOP" by no response at all (acks=0 style).
#pragma once

#include <atomic>
#include <chrono>
#include <cstring>
#include <memory>
#include <random>
#include <thread>

#include "network/socket_server.h"
#include "server/request_handler_pool.h"

namespace skiff::test {

class EchoHandler : public network::RequestHandler {
 public:
  std::atomic<int> delay_us{0};
  std::atomic<bool> jitter{false};
  std::atomic<int> handled{0};
  static constexpr std::chrono::milliseconds kThrottle{1000};

  void handle(network::Request request, network::ResponseSender& sender) override {
    ++handled;
    int d = delay_us.load();
    if (jitter) {
      thread_local std::mt19937 rng(std::random_device{}());
      d += static_cast<int>(rng() % 200);
    }
    if (d > 0) std::this_thread::sleep_for(std::chrono::microseconds(d));
    auto bytes = request.frame.bytes();
    if (bytes.size() >= 5 && std::memcmp(bytes.data(), "CLOSE", 5) == 0) {
      sender.send_response(network::Response::close(request.context, "test asked to close"));
      return;
    }
    if (bytes.size() >= 4 && std::memcmp(bytes.data(), "NOOP", 4) == 0) {
      sender.send_response(network::Response::noop(request.context));
      return;
    }
    std::vector<uint8_t> out(4 + bytes.size());
    uint32_t n = static_cast<uint32_t>(bytes.size());
    out[0] = uint8_t(n >> 24), out[1] = uint8_t(n >> 16), out[2] = uint8_t(n >> 8), out[3] = uint8_t(n);
    if (!bytes.empty()) std::memcpy(out.data() + 4, bytes.data(), bytes.size());
    auto response = network::Response::send(request.context, std::move(out));
    // "THRT": echoed, then the connection is muted for kThrottle (a quota).
    if (bytes.size() >= 4 && std::memcmp(bytes.data(), "THRT", 4) == 0) response.throttle = kThrottle;
    sender.send_response(std::move(response));
  }
};

struct TestBroker {
  explicit TestBroker(network::SocketServerConfig cfg, size_t queue = 500, int handler_threads = 4)
      : channel(queue), server(with_default_listener(std::move(cfg)), channel) {
    server.startup();
    handlers = std::make_unique<server::RequestHandlerPool>(handler_threads, channel, handler);
  }
  ~TestBroker() { stop(); }

  void stop() {
    if (!handlers) return;
    server.stop_accepting();
    handlers->shutdown();
    server.shutdown();
    handlers.reset();
  }

  uint16_t port() const { return server.bound_listeners().at(0).port; }

  static network::SocketServerConfig with_default_listener(network::SocketServerConfig cfg) {
    if (cfg.listeners.empty()) cfg.listeners.push_back({"PLAINTEXT", "127.0.0.1", 0, nullptr});
    return cfg;
  }

  EchoHandler handler;
  network::RequestChannel channel;
  network::SocketServer server;
  std::unique_ptr<server::RequestHandlerPool> handlers;
};

}  // namespace skiff::test
