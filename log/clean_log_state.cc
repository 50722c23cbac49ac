#include "log/clean_log_state.h"

#include <stdexcept>

#include "common/file_fields.h"
#include "log/crc32c.h"
#include "log/file_util.h"

namespace skiff::storage {

namespace {

constexpr uint32_t kMagic = 0x534b434c;  // "SKCL"
constexpr uint32_t kVersion = 0;
constexpr uint32_t kNoProducers = 1;

uint32_t crc_of(std::string_view bytes) { return crc32c(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()); }

void put_entry(std::string& out, const std::string& name, const CleanLogState& s) {
  put_string_field(out, name);
  for (int64_t v : {s.active_base, s.next_offset, static_cast<int64_t>(s.log_bytes)})
    put_be64_field(out, static_cast<uint64_t>(v));
  put_be_field(out, s.offset_entries, 4);
  put_be_field(out, s.time_entries, 4);
  for (int64_t v : {s.max_timestamp, s.max_timestamp_offset, s.roll_base_ms, s.bytes_since_index})
    put_be64_field(out, static_cast<uint64_t>(v));
  put_be_field(out, s.no_producers ? kNoProducers : 0, 4);
}

CleanLogState take_entry(FieldReader& r) {
  CleanLogState s;
  s.active_base = static_cast<int64_t>(r.uint64());
  s.next_offset = static_cast<int64_t>(r.uint64());
  s.log_bytes = r.uint64();
  s.offset_entries = r.uint32();
  s.time_entries = r.uint32();
  s.max_timestamp = static_cast<int64_t>(r.uint64());
  s.max_timestamp_offset = static_cast<int64_t>(r.uint64());
  s.roll_base_ms = static_cast<int64_t>(r.uint64());
  s.bytes_since_index = static_cast<int64_t>(r.uint64());
  s.no_producers = (r.uint32() & kNoProducers) != 0;
  return s;
}

}  // namespace

std::string encode_clean_log_states(const CleanLogStates& states) {
  std::string out;
  out.reserve(16 + states.size() * 96);
  put_be_field(out, kMagic, 4);
  put_be_field(out, kVersion, 4);
  put_be_field(out, static_cast<uint32_t>(states.size()), 4);
  for (const auto& [name, s] : states) put_entry(out, name, s);
  put_be_field(out, crc_of(out), 4);
  return out;
}

CleanLogStates decode_clean_log_states(std::string_view bytes) {
  if (bytes.size() < 16) return {};
  const std::string_view body = bytes.substr(0, bytes.size() - 4);
  if (load_be32(reinterpret_cast<const uint8_t*>(bytes.data() + body.size())) != crc_of(body)) return {};
  CleanLogStates out;
  try {
    FieldReader r(body);
    if (r.uint32() != kMagic || r.uint32() != kVersion) return {};
    const uint32_t n = r.uint32();
    out.reserve(n);
    for (uint32_t i = 0; i < n; ++i) {
      std::string name = r.string();
      out.emplace(std::move(name), take_entry(r));
    }
    if (!r.done()) return {};
  } catch (const std::runtime_error&) {
    return {};
  }
  return out;
}

CleanLogStates read_clean_log_states(const std::filesystem::path& log_dir) {
  std::string bytes;
  if (!read_small_file(log_dir / kCleanLogStateFile, bytes)) return {};
  return decode_clean_log_states(bytes);
}

Result<void> write_clean_log_states(const std::filesystem::path& log_dir, const CleanLogStates& states) {
  return io_status(write_file_durably(log_dir / kCleanLogStateFile, encode_clean_log_states(states)));
}

}  // namespace skiff::storage
