#include "protocol/consumer_protocol.h"

#include <algorithm>

#include "protocol/byte_reader.h"

namespace skiff::protocol {
namespace {

using protocol::ByteReader;

NamedPartitions read_topic_partitions(ByteReader& r) {
  NamedPartitions out;
  const size_t topics = r.read_array_length(false, 2 + 4);
  for (size_t i = 0; i < topics; ++i) {
    auto& ps = out[r.read_string(false)];
    const size_t n = r.read_array_length(false, 4);
    for (size_t j = 0; j < n; ++j) ps.insert(r.read_int32());
  }
  return out;
}

void put(Bytes& b, uint64_t v, int n) {
  for (int i = n - 1; i >= 0; --i) b.push_back(static_cast<uint8_t>(v >> (8 * i)));
}

}  // namespace

std::optional<std::set<std::string>> subscribed_topics(const Bytes& s) {
  try {
    ByteReader r(s);
    r.read_int16();
    std::set<std::string> topics;
    const size_t n = r.read_array_length(false, 2);
    for (size_t i = 0; i < n; ++i) topics.insert(r.read_string(false));
    return topics;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

int16_t embedded_protocol_version(const Bytes& b) {
  if (b.size() < 2) return 0;
  return static_cast<int16_t>((b[0] << 8) | b[1]);
}

std::optional<ConsumerSubscription> decode_subscription(const Bytes& s) {
  try {
    ByteReader r(s);
    ConsumerSubscription out;
    out.version = r.read_int16();
    if (out.version < 0) return std::nullopt;
    const size_t n = r.read_array_length(false, 2);
    for (size_t i = 0; i < n; ++i) out.topics.push_back(r.read_string(false));
    if (r.empty()) return out;  // Kafka tolerates a v0 without user data
    r.read_nullable_bytes(false);
    if (out.version >= 1) out.owned = read_topic_partitions(r);
    if (out.version >= 2) r.read_int32();
    if (out.version >= 3) out.rack_id = r.read_nullable_string(false);
    return out;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

Bytes encode_assignment(int16_t version, const NamedPartitions& partitions) {
  Bytes b;
  put(b, static_cast<uint16_t>(std::clamp<int16_t>(version, 0, 3)), 2);
  put(b, partitions.size(), 4);
  for (const auto& [topic, ps] : partitions) {
    put(b, topic.size(), 2);
    b.insert(b.end(), topic.begin(), topic.end());
    put(b, ps.size(), 4);
    for (int32_t p : ps) put(b, static_cast<uint32_t>(p), 4);
  }
  put(b, 0xffffffffU, 4);  // null user data
  return b;
}

std::optional<NamedPartitions> decode_assignment(const Bytes& a) {
  if (a.empty()) return NamedPartitions{};  // a member the leader gave nothing
  try {
    ByteReader r(a);
    if (r.read_int16() < 0) return std::nullopt;
    return read_topic_partitions(r);
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

}  // namespace skiff::protocol
