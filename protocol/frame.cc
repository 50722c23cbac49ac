#include "protocol/frame.h"

namespace skiff::protocol {

DecodedRequestHeader read_request_header(ByteReader& r) {
  // Peek at key and version to pick the header version.
  ByteReader peek = r;
  const int16_t api_key = peek.read_int16();
  const int16_t api_version = peek.read_int16();
  DecodedRequestHeader out;
  const int16_t header_version = request_header_version(api_key, api_version);
  out.known_api = header_version >= 0;
  out.header_version = out.known_api ? header_version : 1;
  out.header.decode(r, out.header_version);
  return out;
}

}  // namespace skiff::protocol
