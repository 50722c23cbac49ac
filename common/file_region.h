// FileRegion and ResponseChunk: the bytes of a response as the codec builds
// them and the network layer writes them — owned bytes, or a region of an
// open file that the Processor sends with sendfile(2). Shared by protocol/
// (which encodes them) and network/ (which writes them), so neither includes
// the other. Header-only; a value type, no thread rules.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <variant>
#include <vector>

namespace skiff {

// A region of an open file, written to the socket with sendfile(2).
// keep_alive holds whatever keeps fd open (e.g. the segment) until written.
struct FileRegion {
  int fd = -1;
  int64_t offset = 0;
  size_t length = 0;
  std::shared_ptr<const void> keep_alive;
};

using ResponseChunk = std::variant<std::vector<uint8_t>, FileRegion>;

}  // namespace skiff
