// Codec throughput: encode/decode of a 1 MiB Produce request (v9) and of a
// Fetch response (v12) with 1 MiB of records in 16 partitions. Prints MB/s.
// Decoding is zero copy (records stay views into the frame), so its MB/s is
// the frame size over a parse of the few fields around the records.
// Not a test; run by hand: bench_codec [iterations]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "protocol/byte_reader.h"
#include "protocol/byte_writer.h"
#include "protocol/generated/fetch_response.h"
#include "protocol/generated/produce_request.h"

using namespace skiff::protocol;

namespace {

struct Rate {
  double mb_per_s;
  double us_per_op;
};

template <class Fn>
Rate measure(size_t bytes_per_iter, int iterations, Fn&& fn) {
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < iterations; ++i) fn();
  const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start;
  return {static_cast<double>(bytes_per_iter) * iterations / elapsed.count() / 1e6, elapsed.count() * 1e6 / iterations};
}

template <class Message>
void bench(const char* name, const Message& message, int16_t version, int iterations) {
  const size_t size = message.encoded_size(version);
  std::vector<uint8_t> encoded;
  const Rate enc = measure(size, iterations, [&] {
    ByteWriter w(message.encoded_size(version));
    message.encode(w, version);
    encoded = w.take_bytes();
  });
  size_t sink = 0;
  const Rate dec = measure(size, iterations, [&] {
    Message decoded;
    ByteReader r(encoded);
    decoded.decode(r, version);
    sink += r.position();
  });
  std::printf("%-32s %8zu bytes  encode %8.0f MB/s (%7.1f us)  decode %10.0f MB/s (%7.2f us)%s\n", name, size,
              enc.mb_per_s, enc.us_per_op, dec.mb_per_s, dec.us_per_op, sink == 0 ? " !" : "");
}

}  // namespace

int main(int argc, char** argv) {
  const int iterations = argc > 1 ? std::atoi(argv[1]) : 2000;
  std::vector<uint8_t> records(1 << 20, 0x5a);

  ProduceRequest produce;
  produce.acks = -1;
  produce.timeout_ms = 30000;
  auto& topic = produce.topic_data.emplace_back();
  topic.name = "bench-topic";
  topic.partition_data.push_back({0, Records::bytes(records), {}});
  bench("Produce v9, 1 MiB records", produce, 9, iterations);

  FetchResponse fetch;
  auto& fetched = fetch.responses.emplace_back();
  fetched.topic = "bench-topic";
  const size_t per_partition = records.size() / 16;
  for (int p = 0; p < 16; ++p) {
    auto& part = fetched.partitions.emplace_back();
    part.partition_index = p;
    part.high_watermark = 1000000;
    part.records = Records::bytes(std::span<const uint8_t>(records).subspan(p * per_partition, per_partition));
  }
  bench("Fetch v12, 16 x 64 KiB records", fetch, 12, iterations);
  return 0;
}
