// The table of every API the codec knows (generated from protocol/schemas), and
// the header-version rules derived from it.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

namespace skiff::protocol {

struct ApiInfo {
  int16_t key;
  std::string_view name;  // e.g. "Produce"
  int16_t min_version;
  int16_t max_version;
  int16_t first_flexible_version;  // -1 if no version is flexible

  bool is_flexible(int16_t version) const { return first_flexible_version >= 0 && version >= first_flexible_version; }
  bool supports(int16_t version) const { return version >= min_version && version <= max_version; }
};

// Every API, sorted by key.
std::span<const ApiInfo> all_apis();
// nullptr for a key the codec does not know.
const ApiInfo* find_api(int16_t api_key);

// Request header version: 2 for flexible versions, else 1. Versions above
// the known maximum follow the "N+" flexible rule, so a newer client's
// ApiVersions request still parses. -1 for an unknown key.
int16_t request_header_version(int16_t api_key, int16_t api_version);
// Response header version: 1 for flexible versions, else 0; ApiVersions
// responses always use 0. -1 for an unknown key.
int16_t response_header_version(int16_t api_key, int16_t api_version);

}  // namespace skiff::protocol
