#include "api/group/consumer_protocol.h"

namespace skiff::api::group {

std::optional<std::set<std::string>> subscribed_topics(const Bytes& s) {
  size_t pos = 0;
  auto get = [&](int n) -> std::optional<uint32_t> {
    if (s.size() - pos < static_cast<size_t>(n)) return std::nullopt;
    uint32_t v = 0;
    for (int i = 0; i < n; ++i) v = (v << 8) | s[pos++];
    return v;
  };
  if (!get(2)) return std::nullopt;  // version
  auto count = get(4);
  if (!count || *count > s.size()) return std::nullopt;
  std::set<std::string> topics;
  for (uint32_t i = 0; i < *count; ++i) {
    auto len = get(2);
    if (!len || s.size() - pos < *len) return std::nullopt;
    topics.emplace(reinterpret_cast<const char*>(s.data() + pos), *len);
    pos += *len;
  }
  return topics;
}

}  // namespace skiff::api::group
