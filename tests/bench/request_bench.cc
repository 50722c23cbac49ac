// skiff_request_bench: requests per second through the broker's whole request
// path (Acceptor -> Processor -> RequestChannel -> handler -> back), using
// ApiVersions v3 requests, the cheapest API, on C connections spread over T
// threads, each connection with one request outstanding (closed loop).
// Not a test: run by bench/network.py.
//
//   skiff_request_bench HOST PORT [connections=100] [seconds=5] [threads=2]
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>

#include "protocol/frame.h"
#include "protocol/generated/api_versions_request.h"
#include "tests/support/raw_client.h"

using namespace skiff;

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s HOST PORT [connections] [seconds] [threads]\n", argv[0]);
    return 2;
  }
  std::string host = argv[1];
  auto port = static_cast<uint16_t>(std::atoi(argv[2]));
  int connections = argc > 3 ? std::atoi(argv[3]) : 100;
  double seconds = argc > 4 ? std::atof(argv[4]) : 5;
  int threads = argc > 5 ? std::atoi(argv[5]) : 2;

  protocol::RequestHeader header;
  header.correlation_id = 1;
  header.client_id = "skiff-bench";
  protocol::ApiVersionsRequest body;
  body.client_software_name = "skiff-bench";
  body.client_software_version = "1.0";
  auto frame = protocol::encode_request_frame(header, 3, body);

  std::atomic<long> done{0};
  std::atomic<bool> failed{false};
  auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  std::vector<std::thread> workers;
  for (int t = 0; t < threads; ++t) {
    workers.emplace_back([&, t] {
      std::vector<test::RawClient> conns;
      for (int c = t; c < connections; c += threads) conns.emplace_back(host, port);
      long n = 0;
      while (std::chrono::steady_clock::now() < deadline && !failed) {
        for (auto& c : conns)
          if (!c.send_raw(frame.data(), frame.size())) failed = true;
        for (auto& c : conns) {
          if (!c.read_frame()) failed = true;
          ++n;
        }
      }
      done += n;
    });
  }
  auto start = std::chrono::steady_clock::now();
  for (auto& w : workers) w.join();
  double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (failed) {
    std::fprintf(stderr, "a request failed\n");
    return 1;
  }
  std::printf("%d connections, %d client threads: %ld requests in %.2f s = %.0f requests/s\n", connections, threads,
              done.load(), elapsed, done.load() / elapsed);
  return 0;
}
