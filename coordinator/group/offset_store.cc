#include "coordinator/group/offset_store.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <system_error>

#include "coordinator/runtime/coordinator_log.h"
#include "log/crc32c.h"

namespace skiff::group {
namespace {

enum RecordType : uint8_t { kOffset = 1, kOffsetDelete = 2, kGroup = 3, kGroupDelete = 4, kPending = 5, kTxnEnd = 6 };

class Encoder {
 public:
  Encoder& u8(uint8_t v) { return put(v, 1); }
  Encoder& i16(int16_t v) { return put(static_cast<uint16_t>(v), 2); }
  Encoder& i32(int32_t v) { return put(static_cast<uint32_t>(v), 4); }
  Encoder& i64(int64_t v) { return put(static_cast<uint64_t>(v), 8); }
  Encoder& str16(const std::string& s) {
    put(s.size(), 2);
    out_.insert(out_.end(), s.begin(), s.end());
    return *this;
  }
  Encoder& str32(const std::string& s) {
    put(s.size(), 4);
    out_.insert(out_.end(), s.begin(), s.end());
    return *this;
  }
  // Frames the payload: length, CRC, payload.
  std::vector<uint8_t> framed() const {
    Encoder h;
    h.put(out_.size(), 4).put(storage::crc32c(out_.data(), out_.size()), 4);
    auto r = h.out_;
    r.insert(r.end(), out_.begin(), out_.end());
    return r;
  }

 private:
  Encoder& put(uint64_t v, int n) {
    for (int i = n - 1; i >= 0; --i) out_.push_back(static_cast<uint8_t>(v >> (8 * i)));
    return *this;
  }
  std::vector<uint8_t> out_;
};

class Decoder {
 public:
  Decoder(const uint8_t* p, size_t n) : p_(p), end_(p + n) {}
  uint64_t get(int n) {
    if (end_ - p_ < n) throw std::out_of_range("short record");
    uint64_t v = 0;
    for (int i = 0; i < n; ++i) v = (v << 8) | *p_++;
    return v;
  }
  uint8_t u8() { return static_cast<uint8_t>(get(1)); }
  int16_t i16() { return static_cast<int16_t>(get(2)); }
  int32_t i32() { return static_cast<int32_t>(get(4)); }
  int64_t i64() { return static_cast<int64_t>(get(8)); }
  std::string str(int len_bytes) {
    size_t n = get(len_bytes);
    if (static_cast<size_t>(end_ - p_) < n) throw std::out_of_range("short string");
    std::string s(reinterpret_cast<const char*>(p_), n);
    p_ += n;
    return s;
  }

 private:
  const uint8_t* p_;
  const uint8_t* end_;
};

// Names of live records (in memory only). The group is length-prefixed so
// that no group's prefix is another group's.
std::string group_key(const std::string& group) { return "g" + group; }
std::string scoped(char kind, const std::string& group) {
  return kind + std::to_string(group.size()) + ':' + group + '\0';
}
std::string offsets_prefix(const std::string& group) { return scoped('o', group); }
std::string offset_key(const std::string& group, const TopicPartition& tp) {
  return offsets_prefix(group) + tp.topic + '\0' + std::to_string(tp.partition);
}
std::string pending_prefix(const std::string& group) { return scoped('p', group); }
std::string pending_tp_prefix(const std::string& group, const TopicPartition& tp) {
  return pending_prefix(group) + tp.topic + '\0' + std::to_string(tp.partition) + '\0';
}
std::string pending_key(const std::string& group, const TopicPartition& tp, int64_t producer_id) {
  return pending_tp_prefix(group, tp) + std::to_string(producer_id);
}
bool names_producer(const std::string& key, int64_t producer_id) {
  return key.ends_with('\0' + std::to_string(producer_id));
}

void encode_offset_fields(Encoder& e, const OffsetAndMetadata& o) {
  e.i64(o.offset).i32(o.leader_epoch).str32(o.metadata).i64(o.commit_timestamp).i64(o.expire_timestamp);
}
std::vector<uint8_t> encode_pending(const std::string& group, const PendingWrite& w) {
  Encoder e;
  const auto& p = w.offset;
  e.u8(kPending).str16(group).i64(w.producer_id).i16(p.producer_epoch).i64(p.order).u8(p.superseded ? 1 : 0);
  e.str16(w.tp.topic).i32(w.tp.partition);
  encode_offset_fields(e, p.offset);
  return e.framed();
}

OffsetAndMetadata decode_offset_fields(Decoder& d) {
  OffsetAndMetadata o;
  o.offset = d.i64();
  o.leader_epoch = d.i32();
  o.metadata = d.str(4);
  o.commit_timestamp = d.i64();
  o.expire_timestamp = d.i64();
  return o;
}

bool write_all(int fd, const std::vector<uint8_t>& buf) {
  size_t done = 0;
  while (done < buf.size()) {
    ssize_t n = ::write(fd, buf.data() + done, buf.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<size_t>(n);
  }
  return true;
}

void fsync_dir(const std::filesystem::path& dir) {
  int d = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (d < 0) return;
  ::fsync(d);
  ::close(d);
}

using LiveMap = std::map<std::string, std::vector<uint8_t>>;

void erase_prefix(LiveMap& live, const std::string& prefix, const std::function<bool(const std::string&)>& pick) {
  for (auto it = live.lower_bound(prefix); it != live.end() && it->first.starts_with(prefix);) {
    if (pick(it->first))
      it = live.erase(it);
    else
      ++it;
  }
}
bool any_key(const std::string&) { return true; }

// Replays one record's payload (after its type and group) into `loaded`
// and `live`. Throws std::out_of_range on a malformed record.
void apply_record(uint8_t type, const std::string& group, Decoder& d, std::vector<uint8_t> framed,
                  std::map<std::string, LoadedGroup>& loaded, LiveMap& live) {
  auto existing = [&]() -> LoadedGroup* {
    auto it = loaded.find(group);
    return it == loaded.end() ? nullptr : &it->second;
  };
  if (type == kOffset || type == kOffsetDelete) {
    TopicPartition tp;
    tp.topic = d.str(2);
    tp.partition = d.i32();
    if (type == kOffset) {
      loaded[group].offsets[tp] = decode_offset_fields(d);
      live[offset_key(group, tp)] = std::move(framed);
      return;
    }
    if (auto* g = existing()) {
      g->offsets.erase(tp);
      for (auto& [pid, offsets] : g->pending) offsets.erase(tp);
    }
    live.erase(offset_key(group, tp));
    erase_prefix(live, pending_tp_prefix(group, tp), any_key);
  } else if (type == kGroup) {
    GroupRecord g;
    g.group_id = group;
    g.protocol_type = d.str(2);
    g.generation = d.i32();
    g.state_timestamp = d.i64();
    loaded[group].group = std::move(g);
    live[group_key(group)] = std::move(framed);
  } else if (type == kGroupDelete) {
    loaded.erase(group);
    live.erase(group_key(group));
    erase_prefix(live, offsets_prefix(group), any_key);
    erase_prefix(live, pending_prefix(group), any_key);
  } else if (type == kPending) {
    const int64_t pid = d.i64();
    PendingOffset p;
    p.producer_epoch = d.i16();
    p.order = d.i64();
    p.superseded = d.u8() != 0;
    TopicPartition tp;
    tp.topic = d.str(2);
    tp.partition = d.i32();
    p.offset = decode_offset_fields(d);
    loaded[group].pending[pid][tp] = std::move(p);
    live[pending_key(group, tp, pid)] = std::move(framed);
  } else if (type == kTxnEnd) {
    const int64_t pid = d.i64();
    d.i16();  // producer epoch
    d.u8();   // commit: its offsets precede this record
    if (auto* g = existing()) g->pending.erase(pid);
    erase_prefix(live, pending_prefix(group), [pid](const std::string& k) { return names_producer(k, pid); });
  } else {
    throw std::out_of_range("unknown record type");
  }
}

}  // namespace

OffsetStore::OffsetStore(std::filesystem::path file, std::map<std::string, LoadedGroup>& loaded)
    : path_(std::move(file)) {
  std::filesystem::remove(path_.string() + ".tmp");  // an interrupted compaction
  fd_ = ::open(path_.c_str(), O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd_ < 0) throw std::system_error(errno, std::generic_category(), "cannot open " + path_.string());
  replay(loaded);
}

OffsetStore::~OffsetStore() {
  if (fd_ >= 0) {
    ::fdatasync(fd_);
    ::close(fd_);
  }
}

void OffsetStore::replay(std::map<std::string, LoadedGroup>& loaded) {
  struct stat st {};
  if (::fstat(fd_, &st) != 0) throw std::system_error(errno, std::generic_category(), "stat " + path_.string());
  std::vector<uint8_t> data(static_cast<size_t>(st.st_size));
  size_t got = 0;
  while (got < data.size()) {
    ssize_t n = ::pread(fd_, data.data() + got, data.size() - got, static_cast<off_t>(got));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    got += static_cast<size_t>(n);
  }
  size_t pos = 0;
  while (pos + 8 <= got) {
    Decoder h(data.data() + pos, 8);
    auto len = static_cast<size_t>(h.get(4));
    auto crc = static_cast<uint32_t>(h.get(4));
    if (pos + 8 + len > got || storage::crc32c(data.data() + pos + 8, len) != crc) break;
    const uint8_t* payload = data.data() + pos + 8;
    std::vector<uint8_t> framed(data.begin() + static_cast<long>(pos), data.begin() + static_cast<long>(pos + 8 + len));
    try {
      Decoder d(payload, len);
      auto type = d.u8();
      auto group = d.str(2);
      apply_record(type, group, d, std::move(framed), loaded, live_);
    } catch (const std::out_of_range& e) {
      coordinator::log().warn("{}: bad record at byte {} ({}): ignoring the rest", path_.string(), pos, e.what());
      break;
    }
    pos += 8 + len;
  }
  for (auto it = loaded.begin(); it != loaded.end();) {  // a group with nothing left
    std::erase_if(it->second.pending, [](const auto& kv) { return kv.second.empty(); });
    if (!it->second.group && it->second.offsets.empty() && it->second.pending.empty())
      it = loaded.erase(it);
    else
      ++it;
  }
  if (pos < static_cast<size_t>(st.st_size)) {
    coordinator::log().warn("{}: truncating a torn tail of {} bytes at {}", path_.string(),
                            st.st_size - static_cast<long>(pos), pos);
    if (::ftruncate(fd_, static_cast<off_t>(pos)) != 0)
      throw std::system_error(errno, std::generic_category(), "truncate " + path_.string());
    ::fdatasync(fd_);
  }
  file_bytes_ = pos;
  for (auto& [k, v] : live_) live_bytes_ += v.size();
}

std::optional<uint64_t> OffsetStore::append_locked(const std::vector<Rec>& records) {
  std::vector<uint8_t> buf;
  for (const auto& r : records) buf.insert(buf.end(), r.framed.begin(), r.framed.end());
  if (!write_all(fd_, buf)) {
    coordinator::log().error("{}: write failed: {}", path_.string(), std::strerror(errno));
    // Leave no partial record behind: replay would stop there.
    if (::ftruncate(fd_, static_cast<off_t>(file_bytes_)) != 0)
      coordinator::log().error("{}: cannot truncate after a failed write: {}", path_.string(), std::strerror(errno));
    return std::nullopt;
  }
  file_bytes_ += buf.size();
  for (const auto& r : records) {
    if (r.key.empty()) continue;
    auto it = live_.find(r.key);
    if (it != live_.end()) {
      live_bytes_ -= it->second.size();
      live_.erase(it);
    }
    if (!r.tombstone) {
      live_bytes_ += r.framed.size();
      live_.emplace(r.key, r.framed);
    }
  }
  return ++written_seq_;
}

void OffsetStore::erase_live_locked(const std::string& prefix, const std::function<bool(const std::string&)>& pick) {
  for (auto it = live_.lower_bound(prefix); it != live_.end() && it->first.starts_with(prefix);) {
    if (pick(it->first)) {
      live_bytes_ -= it->second.size();
      it = live_.erase(it);
    } else {
      ++it;
    }
  }
}

std::optional<uint64_t> OffsetStore::write_offsets(
    const std::string& group, const std::vector<std::pair<TopicPartition, OffsetAndMetadata>>& offsets,
    const std::vector<PendingWrite>& pending) {
  std::vector<Rec> records;
  for (auto& w : pending) records.push_back({pending_key(group, w.tp, w.producer_id), encode_pending(group, w)});
  for (auto& [tp, o] : offsets) {
    Encoder e;
    e.u8(kOffset).str16(group).str16(tp.topic).i32(tp.partition);
    encode_offset_fields(e, o);
    records.push_back({offset_key(group, tp), e.framed()});
  }
  std::optional<uint64_t> seq;
  {
    std::lock_guard lock(mu_);
    seq = append_locked(records);
  }
  maybe_compact_locked();
  return seq;
}

std::optional<uint64_t> OffsetStore::delete_offsets(const std::string& group, const std::vector<TopicPartition>& tps) {
  std::vector<Rec> records;
  for (auto& tp : tps) {
    Encoder e;
    e.u8(kOffsetDelete).str16(group).str16(tp.topic).i32(tp.partition);
    records.push_back({offset_key(group, tp), e.framed(), true});
  }
  std::lock_guard lock(mu_);
  auto seq = append_locked(records);
  if (seq)
    for (auto& tp : tps) erase_live_locked(pending_tp_prefix(group, tp), any_key);
  return seq;
}

std::optional<uint64_t> OffsetStore::write_group(const GroupRecord& g) {
  Encoder e;
  e.u8(kGroup).str16(g.group_id).str16(g.protocol_type).i32(g.generation).i64(g.state_timestamp);
  std::lock_guard lock(mu_);
  return append_locked({{group_key(g.group_id), e.framed()}});
}

std::optional<uint64_t> OffsetStore::delete_group(const std::string& group) {
  Encoder e;
  e.u8(kGroupDelete).str16(group);
  std::lock_guard lock(mu_);
  auto seq = append_locked({{group_key(group), e.framed(), true}});
  if (seq) {
    erase_live_locked(offsets_prefix(group), any_key);
    erase_live_locked(pending_prefix(group), any_key);
  }
  return seq;
}

std::optional<uint64_t> OffsetStore::write_pending(const std::string& group, const std::vector<PendingWrite>& pending) {
  std::vector<Rec> records;
  for (auto& w : pending) records.push_back({pending_key(group, w.tp, w.producer_id), encode_pending(group, w)});
  std::optional<uint64_t> seq;
  {
    std::lock_guard lock(mu_);
    seq = append_locked(records);
  }
  maybe_compact_locked();
  return seq;
}

std::optional<uint64_t> OffsetStore::end_txn(const std::string& group, int64_t producer_id, int16_t producer_epoch,
                                             bool commit,
                                             const std::vector<std::pair<TopicPartition, OffsetAndMetadata>>& applied,
                                             const std::vector<PendingWrite>& superseded) {
  std::vector<Rec> records;
  for (auto& w : superseded) records.push_back({pending_key(group, w.tp, w.producer_id), encode_pending(group, w)});
  for (auto& [tp, o] : applied) {
    Encoder e;
    e.u8(kOffset).str16(group).str16(tp.topic).i32(tp.partition);
    encode_offset_fields(e, o);
    records.push_back({offset_key(group, tp), e.framed()});
  }
  Encoder e;
  e.u8(kTxnEnd).str16(group).i64(producer_id).i16(producer_epoch).u8(commit ? 1 : 0);
  records.push_back({"", e.framed()});  // not live: it only removes
  std::lock_guard lock(mu_);
  auto seq = append_locked(records);
  if (seq)
    erase_live_locked(pending_prefix(group),
                      [producer_id](const std::string& k) { return names_producer(k, producer_id); });
  return seq;
}

bool OffsetStore::flush(uint64_t seq) {
  if (flushed_seq_.load(std::memory_order_acquire) >= seq) return true;
  std::lock_guard flush_lock(flush_mu_);
  if (flushed_seq_.load(std::memory_order_acquire) >= seq) return true;
  int fd;
  uint64_t target;
  {
    std::lock_guard lock(mu_);
    fd = fd_;
    target = written_seq_;
  }
  if (::fdatasync(fd) != 0) {
    coordinator::log().error("{}: fdatasync failed: {}", path_.string(), std::strerror(errno));
    return false;
  }
  flushed_seq_.store(target, std::memory_order_release);
  return true;
}

uint64_t OffsetStore::file_bytes() const {
  std::lock_guard lock(mu_);
  return file_bytes_;
}

uint64_t OffsetStore::live_bytes() const {
  std::lock_guard lock(mu_);
  return live_bytes_;
}

void OffsetStore::maybe_compact_locked() {
  {
    std::lock_guard lock(mu_);
    if (file_bytes_ < kCompactMinBytes || file_bytes_ < 2 * live_bytes_) return;
  }
  compact();
}

bool OffsetStore::compact() {
  std::lock_guard flush_lock(flush_mu_);
  std::lock_guard lock(mu_);
  return compact_locked();
}

bool OffsetStore::compact_locked() {
  auto tmp = path_.string() + ".tmp";
  int fd = ::open(tmp.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) return false;
  std::vector<uint8_t> buf;
  for (auto& [k, v] : live_) buf.insert(buf.end(), v.begin(), v.end());
  if (!write_all(fd, buf) || ::fdatasync(fd) != 0 || ::rename(tmp.c_str(), path_.c_str()) != 0) {
    coordinator::log().error("{}: compaction failed: {}", path_.string(), std::strerror(errno));
    ::close(fd);
    std::filesystem::remove(tmp);
    return false;
  }
  fsync_dir(path_.parent_path());
  ::close(fd_);
  fd_ = fd;
  coordinator::log().info("{}: compacted {} bytes to {}", path_.string(), file_bytes_, buf.size());
  file_bytes_ = buf.size();
  flushed_seq_.store(written_seq_, std::memory_order_release);
  return true;
}

}  // namespace skiff::group
