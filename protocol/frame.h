// Framing helpers: the request header at the front of a request frame, and
// whole response frames (size prefix + response header + body) ready for
// network::Response::chunks.
#pragma once

#include <cstdint>
#include <limits>
#include <span>
#include <vector>

#include "common/file_region.h"
#include "protocol/api_table.h"
#include "protocol/byte_reader.h"
#include "protocol/byte_writer.h"
#include "protocol/generated/request_header.h"
#include "protocol/generated/response_header.h"

namespace skiff::protocol {

struct DecodedRequestHeader {
  RequestHeader header;
  int16_t header_version = 1;
  bool known_api = true;  // false: header read as v1, body cannot be decoded
};

// Reads the request header at the front of a frame body; `r` is left at the
// start of the request body. An unknown API key is read as header v1 (as old
// clients send) with known_api = false, so the caller can still log and
// answer with the correlation id.
DecodedRequestHeader read_request_header(ByteReader& r);

// Size prefix + response header + body, as chunks (bytes and file regions).
template <class Body>
std::vector<ResponseChunk> encode_response_frame(int32_t correlation_id, int16_t version, const Body& body) {
  ResponseHeader header;
  header.correlation_id = correlation_id;
  const int16_t header_version = response_header_version(Body::kApiKey, version);
  const size_t size = header.encoded_size(header_version) + body.encoded_size(version);
  if (size > static_cast<size_t>(std::numeric_limits<int32_t>::max())) {
    throw EncodeError("response frame larger than 2 GiB");
  }
  ByteWriter w(size + 4);
  w.write_int32(static_cast<int32_t>(size));
  header.encode(w, header_version);
  body.encode(w, version);
  return w.take_chunks();
}

// Size prefix + request header + body in one buffer (clients and tests).
template <class Body>
std::vector<uint8_t> encode_request_frame(const RequestHeader& header, int16_t version, const Body& body) {
  const int16_t header_version = request_header_version(Body::kApiKey, version);
  RequestHeader h = header;
  h.request_api_key = Body::kApiKey;
  h.request_api_version = version;
  const size_t size = h.encoded_size(header_version) + body.encoded_size(version);
  ByteWriter w(size + 4);
  w.write_int32(static_cast<int32_t>(size));
  h.encode(w, header_version);
  body.encode(w, version);
  return w.take_bytes();
}

// A response frame's body (after the size prefix) read back as Resp at
// `version`, its header's correlation id stored in `correlation_id` if
// given (clients and tests). Throws DecodeError.
template <class Resp>
Resp decode_response_frame(std::span<const uint8_t> frame, int16_t version, int32_t* correlation_id = nullptr) {
  ByteReader r(frame);
  ResponseHeader h;
  h.decode(r, response_header_version(Resp::kApiKey, version));
  if (correlation_id) *correlation_id = h.correlation_id;
  Resp out;
  out.decode(r, version);
  return out;
}

}  // namespace skiff::protocol
