#include "server/request_handler_pool.h"

#include <spdlog/spdlog.h>

#include <string>

#include "common/log_escape.h"

namespace skiff::server {

RequestHandlerPool::RequestHandlerPool(int threads, network::RequestChannel& channel, network::RequestHandler& handler)
    : channel_(channel), handler_(handler) {
  for (int i = 0; i < threads; ++i) threads_.emplace_back([this, i] { run(i); });
}

RequestHandlerPool::~RequestHandlerPool() { shutdown(); }

void RequestHandlerPool::run(int index) {
  pthread_setname_np(pthread_self(), ("skiff-io-" + std::to_string(index)).c_str());
  for (;;) {
    auto request = channel_.receive_request(std::chrono::milliseconds(500));
    if (!request) {
      if (channel_.closed()) return;
      continue;
    }
    // Only the route back, in case the handler throws (not the whole context).
    network::RequestContext context;
    context.processor_id = request->context.processor_id;
    context.connection_id = request->context.connection_id;
    try {
      handler_.handle(std::move(*request), channel_);
    } catch (const std::exception& e) {
      // The handler is meant to answer its own errors; if it could not, the
      // connection is closed rather than left muted forever.
      spdlog::error("request handler failed: {}", escaped(e.what()));
      channel_.send_response(network::Response::close(context, std::string("handler error: ") + e.what()));
    }
  }
}

void RequestHandlerPool::shutdown() {
  channel_.close();
  for (auto& t : threads_)
    if (t.joinable()) t.join();
  threads_.clear();
}

}  // namespace skiff::server
