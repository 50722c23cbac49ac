#include "protocol/records.h"

#include <cstring>

namespace skiff::protocol {

bool Records::operator==(const Records& other) const {
  if (kind_ != other.kind_) return false;
  switch (kind_) {
    case Kind::kNull:
      return true;
    case Kind::kBytes:
      return bytes_.size() == other.bytes_.size() &&
             (bytes_.empty() || std::memcmp(bytes_.data(), other.bytes_.data(), bytes_.size()) == 0);
    case Kind::kFileRegions:
      if (regions_.size() != other.regions_.size()) return false;
      for (size_t i = 0; i < regions_.size(); ++i) {
        const auto& a = regions_[i];
        const auto& b = other.regions_[i];
        if (a.fd != b.fd || a.offset != b.offset || a.length != b.length) return false;
      }
      return true;
  }
  return false;
}

}  // namespace skiff::protocol
