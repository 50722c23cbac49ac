#include "protocol/any_message.h"

#include <string>

namespace skiff::protocol {

std::unique_ptr<AnyMessage> decode_request(int16_t api_key, int16_t version, ByteReader& r) {
  auto message = make_request(api_key);
  if (!message) throw DecodeError("unknown API key " + std::to_string(api_key));
  message->decode(r, version);
  return message;
}

std::unique_ptr<AnyMessage> decode_response(int16_t api_key, int16_t version, ByteReader& r) {
  auto message = make_response(api_key);
  if (!message) throw DecodeError("unknown API key " + std::to_string(api_key));
  message->decode(r, version);
  return message;
}

}  // namespace skiff::protocol
