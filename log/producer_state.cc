#include "log/producer_state.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>

#include "common/byte_order.h"
#include "log/crc32c.h"
#include "log/file_util.h"
#include "log/storage_log.h"

namespace skiff::storage {

namespace fs = std::filesystem;

namespace {

constexpr int16_t kSnapshotVersion = 1;
constexpr size_t kSnapshotHeader = 2 + 4 + 4;  // version, crc, count
constexpr size_t kSnapshotEntry = 8 + 2 + 4 + 8 + 4 + 8 + 4 + 8;
const char kSnapshotSuffix[] = ".snapshot";

bool in_sequence(int32_t last_seq, int32_t next_seq) {
  return static_cast<int64_t>(next_seq) == static_cast<int64_t>(last_seq) + 1 ||
         (next_seq == 0 && last_seq == INT32_MAX);
}

void apply(ProducerEntry& e, const ProducerBatch& b) {
  if (b.epoch != e.epoch) {
    e.batches.clear();
    e.epoch = b.epoch;
  }
  e.batches.push_back(b);
  while (e.batches.size() > static_cast<size_t>(kProducerBatchesToRetain)) e.batches.pop_front();
  e.last_timestamp = b.timestamp;
}

}  // namespace

ProducerCheck ProducerStateManager::check(const ProducerBatch& b, const std::vector<ProducerBatch>& staged) const {
  bool txn_open = false;
  ProducerCheck out = check_sequence(b, staged, &txn_open);
  if (out.error == LogErrc::kNone && !out.duplicate && txn_open && !b.transactional) {
    out.error = LogErrc::kInvalidTxnState;
    out.message = fmt::format("Expected transactional write from producer {}", b.producer_id);
  }
  if (out.error == LogErrc::kNone && !out.duplicate && !txn_open && b.transactional && b.needs_verification) {
    if (b.guard == kNoVerification || !verification_valid(b.producer_id, b.guard)) {
      out.error = LogErrc::kInvalidTxnState;
      out.message = "Record was not part of an ongoing transaction";
    }
  }
  return out;
}

VerificationGuard ProducerStateManager::begin_verification(int64_t producer_id) {
  auto [it, added] = verifications_.try_emplace(producer_id, kNoVerification);
  if (added) it->second = ++last_guard_;
  return it->second;
}

ProducerCheck ProducerStateManager::check_sequence(const ProducerBatch& b, const std::vector<ProducerBatch>& staged,
                                                   bool* txn_open) const {
  ProducerCheck out;
  ProducerEntry e;
  bool known = false;
  if (auto it = producers_.find(b.producer_id); it != producers_.end()) {
    e = it->second;
    known = true;
    *txn_open = e.current_txn_first_offset >= 0;
  }
  for (const auto& s : staged) {
    if (s.producer_id != b.producer_id) continue;
    apply(e, s);
    known = true;
    *txn_open = *txn_open || s.transactional;
  }
  if (!known) return out;  // a new (or forgotten) producer: any sequence is accepted, as in Kafka
  if (b.epoch == e.epoch) {
    for (const auto& old : e.batches) {
      if (old.first_seq == b.first_seq && old.last_seq == b.last_seq) {
        out.duplicate = old;
        return out;
      }
    }
  }
  if (b.epoch < e.epoch) {
    out.error = LogErrc::kInvalidProducerEpoch;
    out.message = fmt::format("Epoch of producer {} is {}, which is smaller than the last seen epoch {}", b.producer_id,
                              b.epoch, e.epoch);
    return out;
  }
  if (b.epoch != e.epoch) {
    if (b.first_seq != 0 && e.epoch != -1) {
      out.error = LogErrc::kOutOfOrderSequence;
      out.message = fmt::format(
          "Invalid sequence number for new epoch of producer {}: {} (request epoch), {} (seq. number), {} (current "
          "producer epoch)",
          b.producer_id, b.epoch, b.first_seq, e.epoch);
    }
    return out;
  }
  if (!e.batches.empty() && !in_sequence(e.last_seq(), b.first_seq)) {
    out.error = LogErrc::kOutOfOrderSequence;
    out.message = fmt::format(
        "Out of order sequence number for producer {}: {} (incoming seq. number), {} (current end sequence number)",
        b.producer_id, b.first_seq, e.last_seq());
  }
  return out;
}

void ProducerStateManager::update(const ProducerBatch& b) {
  ProducerEntry& e = producers_[b.producer_id];
  apply(e, b);
  if (b.transactional && e.current_txn_first_offset < 0) {
    e.current_txn_first_offset = b.first_offset;
    ongoing_[b.first_offset] = b.producer_id;
  }
}

ProducerCheck ProducerStateManager::check_marker(int64_t producer_id, int16_t epoch, int32_t coordinator_epoch,
                                                 int16_t transaction_version) const {
  ProducerCheck out;
  auto it = producers_.find(producer_id);
  if (it == producers_.end()) return out;
  const ProducerEntry& e = it->second;
  const bool tv2 = transaction_version >= 2;
  bool stale = tv2 ? epoch <= e.epoch : epoch < e.epoch;
  // TV2: a retried marker of a transaction already completed at this epoch.
  if (stale && tv2 && epoch == e.epoch && (e.current_txn_first_offset < 0 || e.epoch == INT16_MAX)) stale = false;
  if (stale) {
    out.error = LogErrc::kInvalidProducerEpoch;
    out.message =
        fmt::format("Epoch of producer {} at offset marker is {}, which is smaller than the last seen epoch {}",
                    producer_id, epoch, e.epoch);
  } else if (coordinator_epoch < e.coordinator_epoch) {
    out.error = LogErrc::kTransactionCoordinatorFenced;
    out.message = fmt::format("Invalid coordinator epoch for producer {}: {} (zombie), {} (current)", producer_id,
                              coordinator_epoch, e.coordinator_epoch);
  }
  return out;
}

std::optional<CompletedTxn> ProducerStateManager::complete_txn(int64_t producer_id, int16_t epoch,
                                                               int32_t coordinator_epoch, int64_t offset, bool commit,
                                                               int64_t timestamp) {
  ProducerEntry& e = producers_[producer_id];
  if (epoch != e.epoch) {  // Kafka's maybeUpdateProducerEpoch: a new epoch forgets the old batches
    e.batches.clear();
    e.epoch = epoch;
  }
  e.coordinator_epoch = coordinator_epoch;
  e.last_timestamp = timestamp;
  if (e.current_txn_first_offset < 0) return std::nullopt;
  CompletedTxn t{producer_id, e.current_txn_first_offset, offset, !commit};
  ongoing_.erase(e.current_txn_first_offset);
  e.current_txn_first_offset = -1;
  return t;
}

std::optional<int64_t> ProducerStateManager::first_unstable_offset() const {
  if (ongoing_.empty()) return std::nullopt;
  return ongoing_.begin()->first;
}

int64_t ProducerStateManager::last_stable_offset_after(const CompletedTxn& t) const {
  for (const auto& [first, pid] : ongoing_)
    if (pid != t.producer_id) return first;
  return t.last_offset + 1;
}

void ProducerStateManager::clear() {
  producers_.clear();
  ongoing_.clear();
}

std::optional<ProducerEntry> ProducerStateManager::entry(int64_t producer_id) const {
  auto it = producers_.find(producer_id);
  if (it == producers_.end()) return std::nullopt;
  return it->second;
}

fs::path ProducerStateManager::snapshot_path(const fs::path& dir, int64_t offset) {
  return dir / fmt::format("{:020d}{}", offset, kSnapshotSuffix);
}

std::vector<int64_t> ProducerStateManager::list_snapshots(const fs::path& dir) {
  std::vector<int64_t> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    auto name = e.path().filename().string();
    const size_t suffix = sizeof(kSnapshotSuffix) - 1;
    if (name.size() != 20 + suffix || name.compare(20, suffix, kSnapshotSuffix) != 0) continue;
    int64_t v = 0;
    bool ok = true;
    for (int i = 0; i < 20 && ok; ++i) {
      ok = name[i] >= '0' && name[i] <= '9';
      v = v * 10 + (name[i] - '0');
    }
    if (ok) out.push_back(v);
  }
  std::sort(out.begin(), out.end());
  return out;
}

Result<void> ProducerStateManager::take_snapshot(int64_t offset, bool prune) {
  std::vector<uint8_t> buf(kSnapshotHeader + producers_.size() * kSnapshotEntry);
  store_be16(buf.data(), static_cast<uint16_t>(kSnapshotVersion));
  store_be32(buf.data() + 6, static_cast<uint32_t>(producers_.size()));
  uint8_t* p = buf.data() + kSnapshotHeader;
  for (const auto& [pid, e] : producers_) {
    const ProducerBatch last = e.batches.empty() ? ProducerBatch{} : e.batches.back();
    store_be64(p, static_cast<uint64_t>(pid));
    store_be16(p + 8, static_cast<uint16_t>(e.epoch));
    store_be32(p + 10, static_cast<uint32_t>(last.last_seq));
    store_be64(p + 14, static_cast<uint64_t>(last.last_offset));
    store_be32(p + 22, static_cast<uint32_t>(last.last_offset - last.first_offset));
    store_be64(p + 26, static_cast<uint64_t>(e.last_timestamp));
    store_be32(p + 34, static_cast<uint32_t>(e.coordinator_epoch));
    store_be64(p + 38, static_cast<uint64_t>(e.current_txn_first_offset));
    p += kSnapshotEntry;
  }
  store_be32(buf.data() + 2, crc32c(buf.data() + 6, buf.size() - 6));
  const fs::path path = snapshot_path(dir_, offset);
  const fs::path tmp = path.string() + ".tmp";
  FileDescriptor fd(::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644));
  if (!fd.valid()) return unexpected(errno_error());
  int rc = pwrite_full(fd.get(), buf.data(), buf.size(), 0);
  fd = FileDescriptor();  // closed before the rename
  if (rc == 0 && ::rename(tmp.c_str(), path.c_str()) != 0) rc = errno;
  if (rc != 0) {
    std::error_code ec;
    fs::remove(tmp, ec);
    return unexpected(Error::io(rc));
  }
  if (prune) delete_snapshots_below(INT64_MAX);
  return {};
}

void ProducerStateManager::delete_snapshots_below(int64_t offset) {
  auto all = list_snapshots(dir_);
  for (size_t i = 0; i + 2 < all.size() && all[i] < offset; ++i) {
    std::error_code ec;
    fs::remove(snapshot_path(dir_, all[i]), ec);
  }
}

bool ProducerStateManager::read_snapshot(int64_t offset) {
  std::string data;
  if (!read_small_file(snapshot_path(dir_, offset), data) || data.size() < kSnapshotHeader) return false;
  const auto* b = reinterpret_cast<const uint8_t*>(data.data());
  if (static_cast<int16_t>(load_be16(b)) != kSnapshotVersion) return false;
  if (load_be32(b + 2) != crc32c(b + 6, data.size() - 6)) return false;
  const uint32_t n = load_be32(b + 6);
  if (data.size() != kSnapshotHeader + static_cast<size_t>(n) * kSnapshotEntry) return false;
  clear();
  const uint8_t* p = b + kSnapshotHeader;
  for (uint32_t i = 0; i < n; ++i, p += kSnapshotEntry) {
    ProducerBatch last;
    last.producer_id = static_cast<int64_t>(load_be64(p));
    last.epoch = static_cast<int16_t>(load_be16(p + 8));
    last.last_seq = static_cast<int32_t>(load_be32(p + 10));
    last.last_offset = static_cast<int64_t>(load_be64(p + 14));
    const int32_t delta = static_cast<int32_t>(load_be32(p + 22));
    last.first_offset = last.last_offset - delta;
    last.first_seq = last.last_seq - delta < 0 ? last.last_seq - delta + INT32_MAX + 1 : last.last_seq - delta;
    last.timestamp = static_cast<int64_t>(load_be64(p + 26));
    ProducerEntry& e = producers_[last.producer_id];
    e.epoch = last.epoch;
    e.last_timestamp = last.timestamp;
    e.coordinator_epoch = static_cast<int32_t>(load_be32(p + 34));
    e.current_txn_first_offset = static_cast<int64_t>(load_be64(p + 38));
    if (e.current_txn_first_offset >= 0) ongoing_[e.current_txn_first_offset] = last.producer_id;
    if (last.last_seq >= 0) e.batches.push_back(last);
  }
  return true;
}

size_t ProducerStateManager::load(int64_t log_start, int64_t log_end,
                                  const std::function<void(int64_t, const BatchVisitor&)>& scan,
                                  const CompletedVisitor& on_completed, const std::vector<int64_t>* listed) {
  clear();
  int64_t from = log_start;
  auto snaps = listed ? *listed : list_snapshots(dir_);
  for (auto it = snaps.rbegin(); it != snaps.rend(); ++it) {
    if (*it > log_end) {  // the log was truncated below it
      std::error_code ec;
      fs::remove(snapshot_path(dir_, *it), ec);
      continue;
    }
    if (read_snapshot(*it)) {
      from = std::max(*it, log_start);
      break;
    }
    storage_log().warn("{}: ignoring unreadable producer snapshot {}", dir_, *it);
    clear();
  }
  size_t replayed = 0;
  if (from < log_end) {
    scan(from, [&](const ProducerBatch& b) {
      ++replayed;
      if (!b.control) return update(b);
      auto done = complete_txn(b.producer_id, b.epoch, b.coordinator_epoch, b.first_offset, b.commit, b.timestamp);
      if (done && on_completed) on_completed(*done, last_stable_offset_after(*done));
    });
  }
  remove_before(log_start);
  return replayed;
}

void ProducerStateManager::remove_before(int64_t log_start) {
  for (auto it = producers_.begin(); it != producers_.end();) {
    const auto& e = it->second;
    // A producer with an ongoing transaction stays until its marker: the
    // transaction must end (and an abort be indexed) even if its data went.
    if (!e.batches.empty() && e.batches.back().last_offset < log_start && e.current_txn_first_offset < 0) {
      it = producers_.erase(it);
    } else {
      ++it;
    }
  }
}

void ProducerStateManager::delete_snapshots() {
  for (int64_t o : list_snapshots(dir_)) {
    std::error_code ec;
    fs::remove(snapshot_path(dir_, o), ec);
  }
}

}  // namespace skiff::storage
