// AnyMessage: a type-erased request or response body, so that code which
// only knows (api_key, version) at run time (the fuzzer, tests, logging) can
// decode and re-encode any API. Handlers use the concrete generated types.
// A message is a plain value: not synchronised, one thread at a time.
#pragma once

#include <cstdint>
#include <memory>
#include <string_view>

#include "protocol/byte_reader.h"
#include "protocol/byte_writer.h"

namespace skiff::protocol {

class AnyMessage {
 public:
  virtual ~AnyMessage() = default;
  virtual int16_t api_key() const = 0;
  virtual bool is_request() const = 0;
  virtual std::string_view name() const = 0;
  virtual void decode(ByteReader& r, int16_t version) = 0;
  virtual void encode(ByteWriter& w, int16_t version) const = 0;
  virtual size_t encoded_size(int16_t version) const = 0;
  // (Comparison lives in the test-only testing::messages_equal: it would
  // double the compile time of the generated code for no broker use.)

  // The concrete message, or nullptr if this holds another type.
  template <class T>
  T* as();
  template <class T>
  const T* as() const {
    return const_cast<AnyMessage*>(this)->as<T>();
  }
};

// Holds one generated message type T.
template <class T>
class MessageHolder final : public AnyMessage {
 public:
  T message;

  int16_t api_key() const override { return T::kApiKey; }
  bool is_request() const override { return T::kIsRequest; }
  std::string_view name() const override { return T::kName; }
  void decode(ByteReader& r, int16_t version) override { message.decode(r, version); }
  void encode(ByteWriter& w, int16_t version) const override { message.encode(w, version); }
  size_t encoded_size(int16_t version) const override { return message.encoded_size(version); }
};

template <class T>
T* AnyMessage::as() {
  if (api_key() != T::kApiKey || is_request() != T::kIsRequest) return nullptr;
  return &static_cast<MessageHolder<T>*>(this)->message;
}

// An empty message of the API's request or response type; nullptr for an
// unknown key. (Generated.)
std::unique_ptr<AnyMessage> make_request(int16_t api_key);
std::unique_ptr<AnyMessage> make_response(int16_t api_key);

// Decodes a request body. Throws DecodeError for an unknown key or malformed
// input, UnsupportedVersionError for a version outside the API's range.
std::unique_ptr<AnyMessage> decode_request(int16_t api_key, int16_t version, ByteReader& r);
std::unique_ptr<AnyMessage> decode_response(int16_t api_key, int16_t version, ByteReader& r);

}  // namespace skiff::protocol
