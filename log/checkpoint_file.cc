#include "log/checkpoint_file.h"

#include <sstream>
#include <stdexcept>

#include "log/file_util.h"

namespace skiff::storage {

std::map<TopicPartition, int64_t> read_offset_checkpoint(const std::filesystem::path& path) {
  std::map<TopicPartition, int64_t> out;
  std::string text;
  if (!read_small_file(path, text)) return out;
  std::istringstream in(text);
  int version = -1;
  size_t count = 0;
  if (!(in >> version) || version != 0 || !(in >> count)) {
    throw std::runtime_error("malformed checkpoint file " + path.string());
  }
  for (size_t i = 0; i < count; ++i) {
    TopicPartition tp;
    int64_t off;
    if (!(in >> tp.topic >> tp.partition >> off))
      throw std::runtime_error("malformed checkpoint file " + path.string());
    out[tp] = off;
  }
  return out;
}

Result<void> write_offset_checkpoint(const std::filesystem::path& path,
                                     const std::map<TopicPartition, int64_t>& offsets) {
  std::ostringstream out;
  out << "0\n" << offsets.size() << "\n";
  for (const auto& [tp, off] : offsets) out << tp.topic << ' ' << tp.partition << ' ' << off << '\n';
  return io_status(write_file_durably(path, out.str()));
}

}  // namespace skiff::storage
