#include "log/txn_index.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include "common/byte_order.h"
#include "log/file_util.h"
#include "log/storage_log.h"

namespace skiff::storage {

namespace fs = std::filesystem;

void encode_aborted_txn(const AbortedTxn& t, uint8_t* out) {
  store_be16(out, static_cast<uint16_t>(kAbortedTxnVersion));
  store_be64(out + 2, static_cast<uint64_t>(t.producer_id));
  store_be64(out + 10, static_cast<uint64_t>(t.first_offset));
  store_be64(out + 18, static_cast<uint64_t>(t.last_offset));
  store_be64(out + 26, static_cast<uint64_t>(t.last_stable_offset));
}

bool decode_aborted_txn(const uint8_t* in, AbortedTxn& out) {
  if (static_cast<int16_t>(load_be16(in)) != kAbortedTxnVersion) return false;
  out.producer_id = static_cast<int64_t>(load_be64(in + 2));
  out.first_offset = static_cast<int64_t>(load_be64(in + 10));
  out.last_offset = static_cast<int64_t>(load_be64(in + 18));
  out.last_stable_offset = static_cast<int64_t>(load_be64(in + 26));
  return true;
}

fs::path TxnIndex::path(const fs::path& dir, int64_t segment_base) {
  return dir / fmt::format("{:020d}.txnindex", segment_base);
}

namespace {

Result<void> write_entries(const fs::path& p, const std::vector<AbortedTxn>& v) {
  std::vector<uint8_t> buf(v.size() * kAbortedTxnSize);
  for (size_t i = 0; i < v.size(); ++i) encode_aborted_txn(v[i], buf.data() + i * kAbortedTxnSize);
  FileDescriptor fd(::open(p.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644));
  if (!fd.valid()) return unexpected(errno_error());
  return io_status(pwrite_full(fd.get(), buf.data(), buf.size(), 0));
}

}  // namespace

Result<void> TxnIndex::load_segment(int64_t segment_base, int64_t log_end) {
  const fs::path p = path(dir_, segment_base);
  std::string data;
  std::error_code ec;
  if (!fs::exists(p, ec)) return {};
  if (!read_small_file(p, data)) return unexpected(Error::io(EIO));
  std::vector<AbortedTxn> kept;
  bool cut = data.size() % kAbortedTxnSize != 0;
  for (size_t pos = 0; pos + kAbortedTxnSize <= data.size(); pos += kAbortedTxnSize) {
    AbortedTxn t;
    if (!decode_aborted_txn(reinterpret_cast<const uint8_t*>(data.data()) + pos, t) || t.last_offset >= log_end) {
      cut = true;  // Kafka stops at an unknown version too: nothing after it is trusted
      break;
    }
    kept.push_back(t);
  }
  if (cut) {
    storage_log().warn("{}: cutting {} to {} entries", dir_, p.filename().string(), kept.size());
    if (auto r = write_entries(p, kept); !r) return r;
  }
  std::lock_guard lk(mu_);
  by_segment_[segment_base] = std::move(kept);
  return {};
}

Result<void> TxnIndex::append(int64_t segment_base, const AbortedTxn& t) {
  {
    std::lock_guard lk(mu_);
    by_segment_[segment_base].push_back(t);
  }
  uint8_t buf[kAbortedTxnSize];
  encode_aborted_txn(t, buf);
  const auto file = path(dir_, segment_base);
  std::error_code ec;
  const bool existed = std::filesystem::exists(file, ec);
  FileDescriptor fd(::open(file.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644));
  if (!fd.valid() || ::write(fd.get(), buf, sizeof buf) != static_cast<ssize_t>(sizeof buf))
    return unexpected(errno_error());  // a short write leaves errno 0: EIO
  // Durable at once (an abort is rare): a power cut must not keep the ABORT
  // marker, or a producer snapshot past it, without this entry, or
  // read_committed would serve the aborted records (issue 57). An entry whose
  // marker did not survive is dropped on load (past the log end).
  if (::fdatasync(fd.get()) != 0) return unexpected(errno_error());
  if (!existed) {
    if (int rc = fsync_dir(dir_); rc != 0) return unexpected(Error::io(rc));
  }
  return {};
}

Result<void> TxnIndex::add_if_missing(int64_t segment_base, const AbortedTxn& t) {
  {
    std::lock_guard lk(mu_);
    auto it = by_segment_.find(segment_base);
    if (it != by_segment_.end()) {
      for (const auto& e : it->second)
        if (e.last_offset == t.last_offset) return {};
    }
  }
  return append(segment_base, t);
}

void TxnIndex::drop_segment(int64_t segment_base) {
  {
    std::lock_guard lk(mu_);
    by_segment_.erase(segment_base);
  }
  std::error_code ec;
  fs::remove(path(dir_, segment_base), ec);
}

std::vector<AbortedTxn> TxnIndex::collect(int64_t fetch_offset, int64_t upper_bound) const {
  std::vector<AbortedTxn> out;
  std::lock_guard lk(mu_);
  auto it = by_segment_.upper_bound(fetch_offset);
  if (it != by_segment_.begin()) --it;
  for (; it != by_segment_.end(); ++it) {
    for (const auto& t : it->second) {
      if (t.last_offset >= fetch_offset && t.first_offset < upper_bound) out.push_back(t);
      if (t.last_stable_offset >= upper_bound) return out;
    }
  }
  return out;
}

Result<void> write_txn_index_file(const fs::path& p, const std::vector<AbortedTxn>& entries) {
  std::string buf(entries.size() * kAbortedTxnSize, '\0');
  for (size_t i = 0; i < entries.size(); ++i)
    encode_aborted_txn(entries[i], reinterpret_cast<uint8_t*>(buf.data()) + i * kAbortedTxnSize);
  return io_status(write_file_durably(p, buf));
}

void TxnIndex::replace_segments(const std::vector<int64_t>& old_bases, int64_t new_base,
                                std::vector<AbortedTxn> entries) {
  {
    std::lock_guard lk(mu_);
    for (int64_t b : old_bases) by_segment_.erase(b);
    if (!entries.empty()) by_segment_[new_base] = std::move(entries);
  }
  std::error_code ec;
  for (int64_t b : old_bases)
    if (b != new_base) fs::remove(path(dir_, b), ec);
}

std::vector<AbortedTxn> TxnIndex::entries(int64_t segment_base) const {
  std::lock_guard lk(mu_);
  auto it = by_segment_.find(segment_base);
  return it == by_segment_.end() ? std::vector<AbortedTxn>{} : it->second;
}

}  // namespace skiff::storage
