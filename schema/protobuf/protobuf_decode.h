// Decodes a Protobuf record value framed by Confluent's serializer into
// JSON, for the web console's message browser.
//
// Byte layout of the payload (what follows the 5-byte header: magic 0 and
// the schema id, big-endian int32): the message indexes, zig-zag varints as
// Kafka's ByteUtils writes them (a count, then one index per nesting level
// of the message in the file, counted as Confluent's schema lists messages:
// a map's entry message counts only in a schema registered as a serialized
// descriptor; a count of 0 alone means [0], the first message), then the
// serialized message.
//
// Bounded: at most kMaxDecodeInput bytes are parsed, nesting as libprotobuf
// bounds it (100), and the JSON is refused past `max_json_bytes`.
//
// Threads: pure; the schema is only read.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "common/expected.h"
#include "schema/protobuf/protobuf_schema.h"

namespace skiff::schema::protobuf {

inline constexpr size_t kMaxDecodeInput = 16 * 1024 * 1024;

struct DecodedMessage {
  std::vector<int32_t> indexes;  // as read (the default [0] when the count was 0)
  std::string message_name;      // the full name of the message type
  std::string json;              // libprotobuf's JSON of it (proto field names)
};

Expected<DecodedMessage, std::string> decode_protobuf(const ProtobufSchema& schema, std::string_view payload,
                                                      size_t max_json_bytes = 1024 * 1024);

}  // namespace skiff::schema::protobuf
