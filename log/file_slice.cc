#include "log/file_slice.h"

namespace skiff::storage {

std::vector<uint8_t> FileSlice::read_all() const {
  std::vector<uint8_t> out(length);
  if (length == 0 || !file) return out;
  size_t got = 0;
  if (pread_full(file->fd(), out.data(), length, position, &got) != 0 || got != length) return {};
  return out;
}

}  // namespace skiff::storage
