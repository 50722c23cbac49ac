// RequestHandlerPool: the M handler threads (num.io.threads). Each takes
// requests off the RequestChannel and passes them to the RequestHandler
// (KafkaApis), which answers through the channel, now or later.
#pragma once

#include <atomic>
#include <thread>
#include <vector>

#include "network/request.h"
#include "network/request_channel.h"

namespace skiff::server {

class RequestHandlerPool {
 public:
  RequestHandlerPool(int threads, network::RequestChannel& channel, network::RequestHandler& handler);
  ~RequestHandlerPool();

  // Closes the channel, lets the threads take what is still queued, joins them.
  void shutdown();

 private:
  void run(int index);

  network::RequestChannel& channel_;
  network::RequestHandler& handler_;
  std::vector<std::thread> threads_;
};

}  // namespace skiff::server
