// Log cleaner: rewriting one group of segments into `<base>.log.cleaned`,
// then handing it to Log::swap_in_cleaned.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include "log/chunk_reader.h"
#include "log/cleaner_batch.h"
#include "log/cleaner_txn.h"
#include "log/file_util.h"
#include "log/log.h"
#include "log/log_cleaner.h"
#include "log/storage_log.h"
#include "log/throttler.h"

namespace skiff::storage {

int64_t segment_mtime_ms(const LogSegment& s) {
  struct stat st {};
  if (::stat(s.log_path().c_str(), &st) != 0) return 0;
  return static_cast<int64_t>(st.st_mtim.tv_sec) * 1000 + st.st_mtim.tv_nsec / 1000000;
}

int set_mtime_ms(const std::filesystem::path& p, int64_t ms) {
  struct timespec ts[2];
  ts[0].tv_sec = 0;
  ts[0].tv_nsec = UTIME_OMIT;
  ts[1].tv_sec = ms / 1000;
  ts[1].tv_nsec = (ms % 1000) * 1000000;
  return ::utimensat(AT_FDCWD, p.c_str(), ts, 0) == 0 ? 0 : errno;
}

namespace {

// Whether all of a batch's records go (cleaner_txn.h): aborted data, or a
// marker nothing of whose transaction is left and whose delete horizon has
// passed (Kafka's Cleaner.checkBatchRetention). A marker that may go but
// stays gets its horizon (ctx.marker_may_go) and keeps its .txnindex entry.
bool discard_whole_batch(const RecordBatchView& b, BatchFilterContext& ctx, CleanedTxnState& txn) {
  ctx.marker_may_go = false;
  if (!b.is_control()) return txn.on_data_batch(b);
  if (!txn.on_control_batch(b)) return false;
  const auto horizon = b.delete_horizon_ms();
  if (b.record_count() == 0 || (horizon && *horizon <= ctx.now_ms)) return true;
  ctx.marker_may_go = true;
  txn.keep_marker();
  return false;
}

// Filters every batch of `s` into `out`, writing it to `fd` when it grows past
// the io buffer. Returns errno.
int copy_segment(const LogSegment& s, BatchFilterContext ctx, CleanedTxnState& txn, Throttler* th, size_t io_bytes,
                 int fd, uint64_t& written, std::vector<uint8_t>& out, CleanResult& res) {
  auto f = s.acquire_file();
  if (!f) return f.error().sys_errno != 0 ? f.error().sys_errno : EIO;
  ChunkReader r((*f)->fd(), s.size(), io_bytes);
  BatchHeader h;
  uint64_t pos = 0;
  for (; read_batch_header(r, pos, h); pos += h.size) {
    const uint8_t* bytes = r.get(pos, h.size);
    if (!bytes) break;
    RecordBatchView b(std::span<uint8_t>(const_cast<uint8_t*>(bytes), h.size));
    BatchFilterStats st;
    ctx.discard_batch = discard_whole_batch(b, ctx, txn);
    const size_t out_before = out.size();
    filter_batch(b, ctx, out, st);
    if (th) th->maybe_throttle(static_cast<double>(h.size + (out.size() - out_before)));
    res.records_read += st.records_read;
    res.records_kept += st.records_kept;
    if (st.corrupt)
      storage_log().warn("cleaner: undecodable batch at offset {} of {} kept as is", h.base_offset,
                         s.log_path().string());
    if (out.size() >= io_bytes) {
      if (int rc = pwrite_full(fd, out.data(), out.size(), static_cast<int64_t>(written)); rc != 0) return rc;
      written += out.size();
      out.clear();
    }
  }
  if (auto st = r.status(); !st) return st.error().sys_errno;
  return pos == s.size() ? 0 : EIO;  // inactive segments were recovered: a short scan is an I/O problem
}

int write_cleaned(const std::vector<std::shared_ptr<LogSegment>>& group, const BatchFilterContext& base_ctx,
                  CleanedTxnState& txn, Throttler* th, size_t io_bytes, const std::filesystem::path& path,
                  CleanResult& res) {
  FileDescriptor fd(::open(path.c_str(), O_CREAT | O_TRUNC | O_WRONLY | O_CLOEXEC, 0644));
  if (!fd.valid()) return errno;
  uint64_t written = 0;
  std::vector<uint8_t> out;
  for (const auto& s : group) {
    res.bytes_read += s->size();
    if (int rc = copy_segment(*s, base_ctx, txn, th, io_bytes, fd.get(), written, out, res); rc != 0) return rc;
  }
  if (int rc = pwrite_full(fd.get(), out.data(), out.size(), static_cast<int64_t>(written)); rc != 0) return rc;
  written += out.size();
  res.bytes_written += written;
  if (::fsync(fd.get()) != 0) return errno;
  return set_mtime_ms(path, segment_mtime_ms(*group.back()));
}

}  // namespace

int Cleaner::clean_group(Log& log, const std::vector<std::shared_ptr<LogSegment>>& group, int64_t now_ms,
                         CleanedTxnState& txn, CleanResult& res) {
  // map_end_: set by clean_once from build_map.
  const auto producers = log.producer_last_offsets();
  BatchFilterContext ctx;
  ctx.map = map_.get();
  ctx.map_end = map_end_;
  ctx.producer_last_offsets = &producers;
  ctx.now_ms = now_ms;
  ctx.delete_retention_ms = log.config()->delete_retention_ms;
  const int64_t base = group.front()->base_offset();
  const auto path = log.dir() / (segment_file_name(base, ".log") + ".cleaned");
  const auto txn_path = log.dir() / (segment_file_name(base, ".txnindex") + ".cleaned");
  int rc = write_cleaned(group, ctx, txn, cfg_.throttler.get(), cfg_.io_buffer_bytes, path, res);
  // The ABORT markers kept in this group: the cleaned segment's .txnindex.
  std::vector<AbortedTxn> aborts = txn.take_retained();
  if (rc == 0) rc = write_txn_index_file(txn_path, aborts);
  if (rc != 0) {
    std::error_code ec;
    std::filesystem::remove(path, ec);
    std::filesystem::remove(txn_path, ec);
    return rc;
  }
  return log.swap_in_cleaned(group, path, std::move(aborts), cfg_.crash_at);
}

}  // namespace skiff::storage
