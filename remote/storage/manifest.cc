#include "remote/storage/manifest.h"

#include <cstring>

#include "common/byte_order.h"
#include "log/crc32c.h"

namespace skiff::remote {

namespace {

constexpr char kMagic[4] = {'S', 'K', 'R', 'M'};
constexpr size_t kHeaderSize = 4 + 2 + 4 + 4;
constexpr size_t kIndexEntrySize = 1 + 8 + 8 + 4;
constexpr size_t kMaxIndexes = 5;

class Writer {
 public:
  void raw(const void* p, size_t n) { out_.append(static_cast<const char*>(p), n); }
  void u8(uint8_t v) { out_.push_back(static_cast<char>(v)); }
  void u32(uint32_t v) {
    uint8_t b[4];
    store_be32(b, v);
    raw(b, 4);
  }
  void u64(uint64_t v) {
    uint8_t b[8];
    store_be64(b, v);
    raw(b, 8);
  }
  void uuid(const Uuid& u) { raw(u.bytes.data(), u.bytes.size()); }
  std::string& str() { return out_; }

 private:
  std::string out_;
};

// Reads fixed-width fields; a read past the end sets failed() and yields 0.
class Reader {
 public:
  explicit Reader(std::string_view b) : b_(b) {}
  bool take(void* out, size_t n) {
    if (b_.size() - pos_ < n) {
      failed_ = true;
      std::memset(out, 0, n);
      return false;
    }
    std::memcpy(out, b_.data() + pos_, n);
    pos_ += n;
    return true;
  }
  uint8_t u8() {
    uint8_t v = 0;
    take(&v, 1);
    return v;
  }
  uint32_t u32() {
    uint8_t v[4];
    take(v, 4);
    return load_be32(v);
  }
  uint64_t u64() {
    uint8_t v[8];
    take(v, 8);
    return load_be64(v);
  }
  Uuid uuid() {
    Uuid u;
    take(u.bytes.data(), u.bytes.size());
    return u;
  }
  bool failed() const { return failed_; }
  size_t remaining() const { return b_.size() - pos_; }

 private:
  std::string_view b_;
  size_t pos_ = 0;
  bool failed_ = false;
};

std::string encode_body(const Manifest& m) {
  Writer w;
  w.uuid(m.topic_id);
  w.u32(static_cast<uint32_t>(m.partition));
  w.uuid(m.segment_id);
  w.u64(static_cast<uint64_t>(m.start_offset));
  w.u64(static_cast<uint64_t>(m.end_offset));
  w.u64(m.log_size);
  w.u32(m.log_crc32c);
  w.u64(m.indexes_size);
  w.u8(static_cast<uint8_t>(m.indexes.size()));
  for (const auto& i : m.indexes) {
    w.u8(static_cast<uint8_t>(i.type));
    w.u64(i.offset);
    w.u64(i.size);
    w.u32(i.crc32c);
  }
  return std::move(w.str());
}

// The index entries' checks: known types, each once, inside the indexes object, in order.
Expected<void, std::string> check_indexes(const Manifest& m) {
  uint64_t end = 0;
  unsigned seen = 0;
  for (const auto& i : m.indexes) {
    const auto t = static_cast<unsigned>(i.type);
    if (t >= kMaxIndexes) return unexpected("manifest: unknown index type " + std::to_string(t));
    if ((seen & (1u << t)) != 0) return unexpected("manifest: index type " + std::to_string(t) + " twice");
    seen |= 1u << t;
    if (i.offset < end || i.size > m.indexes_size || i.offset > m.indexes_size - i.size)
      return unexpected("manifest: the " + std::string(index_name(i.type)) +
                        " index lies outside the indexes object or overlaps another");
    end = i.offset + i.size;
  }
  return {};
}

Expected<Manifest, std::string> decode_body(std::string_view body) {
  Reader r(body);
  Manifest m;
  m.topic_id = r.uuid();
  m.partition = static_cast<int32_t>(r.u32());
  m.segment_id = r.uuid();
  m.start_offset = static_cast<int64_t>(r.u64());
  m.end_offset = static_cast<int64_t>(r.u64());
  m.log_size = r.u64();
  m.log_crc32c = r.u32();
  m.indexes_size = r.u64();
  const size_t count = r.u8();
  if (r.failed()) return unexpected(std::string("manifest: truncated body"));
  if (count > kMaxIndexes) return unexpected("manifest: " + std::to_string(count) + " indexes (at most 5)");
  if (r.remaining() != count * kIndexEntrySize)
    return unexpected(std::string("manifest: the index entries do not fill the body"));
  for (size_t k = 0; k < count; ++k) {
    ManifestIndex i;
    i.type = static_cast<IndexType>(r.u8());
    i.offset = r.u64();
    i.size = r.u64();
    i.crc32c = r.u32();
    m.indexes.push_back(i);
  }
  if (m.start_offset < 0 || m.end_offset < m.start_offset)
    return unexpected("manifest: bad offsets " + std::to_string(m.start_offset) + ".." + std::to_string(m.end_offset));
  auto ok = check_indexes(m);
  if (!ok) return unexpected(std::move(ok.error()));
  return m;
}

}  // namespace

std::string_view index_name(IndexType t) {
  switch (t) {
    case IndexType::kOffset:
      return "offset";
    case IndexType::kTimestamp:
      return "timestamp";
    case IndexType::kProducerSnapshot:
      return "producer-snapshot";
    case IndexType::kLeaderEpoch:
      return "leader-epoch";
    case IndexType::kTransaction:
      return "transaction";
  }
  return "unknown";
}

const ManifestIndex* Manifest::find(IndexType t) const {
  for (const auto& i : indexes)
    if (i.type == t) return &i;
  return nullptr;
}

uint32_t crc32c_of(std::string_view bytes, uint32_t crc) {
  return storage::crc32c_extend(crc, reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
}

std::string encode_manifest(const Manifest& m) {
  const std::string body = encode_body(m);
  Writer w;
  w.raw(kMagic, sizeof kMagic);
  uint8_t v[2];
  store_be16(v, Manifest::kVersion);
  w.raw(v, 2);
  w.u32(static_cast<uint32_t>(body.size()));
  w.u32(crc32c_of(body));
  w.str() += body;
  return std::move(w.str());
}

Expected<Manifest, std::string> decode_manifest(std::string_view bytes) {
  if (bytes.size() < kHeaderSize)
    return unexpected("manifest: " + std::to_string(bytes.size()) + " bytes, shorter than its header");
  if (std::memcmp(bytes.data(), kMagic, sizeof kMagic) != 0)
    return unexpected(std::string("manifest: bad magic (not a Skiff segment manifest)"));
  const auto* p = reinterpret_cast<const uint8_t*>(bytes.data());
  const uint16_t version = load_be16(p + 4);
  if (version != Manifest::kVersion)
    return unexpected("manifest: format version " + std::to_string(version) + ", this broker reads version " +
                      std::to_string(Manifest::kVersion));
  const uint32_t length = load_be32(p + 6);
  const std::string_view body = bytes.substr(kHeaderSize);
  if (body.size() != length)
    return unexpected("manifest: body of " + std::to_string(body.size()) + " bytes, its header says " +
                      std::to_string(length) + " (truncated or trailing bytes)");
  if (crc32c_of(body) != load_be32(p + 10)) return unexpected(std::string("manifest: CRC-32C mismatch (corrupt)"));
  return decode_body(body);
}

}  // namespace skiff::remote
