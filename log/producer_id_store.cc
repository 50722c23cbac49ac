#include "log/producer_id_store.h"

#include <fmt/format.h>

#include <charconv>
#include <cstring>
#include <stdexcept>

#include "log/file_util.h"
#include "log/storage_log.h"

namespace skiff::storage {

ProducerIdStore::ProducerIdStore(std::filesystem::path path) : path_(std::move(path)) {
  std::string text;
  if (!read_small_file(path_, text)) return;
  const std::string key = "next.block.start:";
  auto pos = text.find(key);
  if (pos == std::string::npos) throw std::runtime_error(fmt::format("{}: no {} line", path_.string(), key));
  pos += key.size();
  while (pos < text.size() && text[pos] == ' ') ++pos;
  int64_t v = 0;
  auto [ptr, ec] = std::from_chars(text.data() + pos, text.data() + text.size(), v);
  if (ec != std::errc() || v < 0) throw std::runtime_error(fmt::format("{}: bad {} value", path_.string(), key));
  next_ = block_end_ = v;
}

int64_t ProducerIdStore::allocate() {
  std::lock_guard lk(mu_);
  if (next_ >= block_end_) {
    const int64_t end = next_ + kBlockSize;
    if (int rc = write_file_durably(path_, fmt::format("version: 0\nnext.block.start: {}\n", end)); rc != 0) {
      storage_log().error("cannot reserve producer ids in {}: {}", path_.string(), std::strerror(rc));
      return -1;
    }
    block_end_ = end;
  }
  return next_++;
}

int64_t ProducerIdStore::high_watermark() const {
  std::lock_guard lk(mu_);
  return next_;
}

}  // namespace skiff::storage
