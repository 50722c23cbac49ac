// Records: the value of a `records` field (Produce data, Fetch data).
//
// It never owns the record bytes, so large payloads are never copied:
//  - null (the default),
//  - a byte view: after decoding, a view into the request frame, which must
//    therefore outlive the message; when encoding, any buffer the caller
//    keeps alive until the encoded output has been produced;
//  - file regions: parts of log segment files, emitted as FileRegion chunks
//    that the network layer writes with sendfile(2).
// Immutable value type; safe to share between threads once built.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "common/file_region.h"

namespace skiff::protocol {

class Records {
 public:
  enum class Kind : uint8_t { kNull, kBytes, kFileRegions };

  Records() = default;  // null

  static Records bytes(std::span<const uint8_t> data) {
    Records r;
    r.kind_ = Kind::kBytes;
    r.bytes_ = data;
    return r;
  }
  static Records file_regions(std::vector<FileRegion> regions) {
    Records r;
    r.kind_ = Kind::kFileRegions;
    r.regions_ = std::move(regions);
    return r;
  }

  Kind kind() const { return kind_; }
  bool is_null() const { return kind_ == Kind::kNull; }
  // The bytes of a kBytes value; empty for the other kinds.
  std::span<const uint8_t> data() const { return bytes_; }
  const std::vector<FileRegion>& regions() const { return regions_; }

  // Length on the wire, excluding the length prefix.
  size_t size() const {
    if (kind_ != Kind::kFileRegions) return bytes_.size();
    size_t total = 0;
    for (const auto& region : regions_) total += region.length;
    return total;
  }

  // Byte views compare by content; file regions by (fd, offset, length).
  bool operator==(const Records& other) const;

 private:
  Kind kind_ = Kind::kNull;
  std::span<const uint8_t> bytes_;
  std::vector<FileRegion> regions_;
};

}  // namespace skiff::protocol
