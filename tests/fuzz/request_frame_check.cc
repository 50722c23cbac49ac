#include "tests/fuzz/request_frame_check.h"

#include <memory>
#include <vector>

#include "protocol/any_message.h"
#include "protocol/api_table.h"
#include "protocol/frame.h"
#include "protocol/testing/random_fill.h"

namespace skiff::protocol::fuzz {

namespace {

std::string where(const AnyMessage& m, int16_t version) {
  return std::string(m.name()) + " v" + std::to_string(version);
}

std::vector<uint8_t> encode(const AnyMessage& m, int16_t version, std::string& error) {
  const size_t size = m.encoded_size(version);
  ByteWriter w(size);
  m.encode(w, version);
  auto out = w.take_bytes();
  if (out.size() != size) error = "encoded_size differs from encode: " + where(m, version);
  return out;
}

}  // namespace

std::string check_request_frame(std::span<const uint8_t> frame) {
  ByteReader r(frame);
  std::unique_ptr<AnyMessage> message;
  int16_t version = 0;
  try {
    const DecodedRequestHeader header = read_request_header(r);
    if (!header.known_api) return {};
    version = header.header.request_api_version;
    const ApiInfo* api = find_api(header.header.request_api_key);
    if (!api->supports(version)) return {};
    message = decode_request(api->key, version, r);
  } catch (const DecodeError&) {
    return {};  // rejected input: the expected outcome for most of it
  }

  // Input bytes need not come back verbatim (non-canonical varints, bools
  // other than 0/1, explicit default tagged fields are normalised), but the
  // codec's own output must be a fixed point.
  std::string error;
  const auto first = encode(*message, version, error);
  if (!error.empty()) return error;
  auto again = make_request(message->api_key());
  ByteReader r2(first);
  try {
    again->decode(r2, version);
  } catch (const DecodeError& e) {
    return "own encoding does not decode (" + std::string(e.what()) + "): " + where(*message, version);
  }
  if (!r2.empty()) return "own encoding has trailing bytes: " + where(*message, version);
  if (!testing::messages_equal(*again, *message)) return "decode(encode(m)) != m: " + where(*message, version);
  if (encode(*again, version, error) != first) {
    return "re-encoding is not stable: " + where(*message, version);
  }
  return error;
}

}  // namespace skiff::protocol::fuzz
