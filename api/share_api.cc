#include "api/share_api.h"

#include <algorithm>
#include <climits>
#include <memory>
#include <mutex>

#include "api/authorize.h"
#include "log/chunk_reader.h"
#include "log/control_batch.h"
#include "log/record_batch.h"

namespace skiff::api::share_api {
namespace {

storage::Offset bound(const storage::Log& log, bool read_committed) {
  return read_committed ? log.last_stable_offset() : storage::Offset(INT64_MAX);
}

// The header fields a share partition needs; a control batch is read whole
// (one small record) to tell an ABORT marker from a COMMIT.
bool read_header(storage::ChunkReader& chunks, uint64_t pos, share::FetchedBatch& out, uint32_t& size) {
  namespace bl = storage::batch_layout;
  storage::BatchHeader h;
  if (!storage::read_batch_header(chunks, pos, h)) return false;
  const uint8_t* p = chunks.get(pos, bl::kHeaderSize);
  if (!p) return false;
  size = h.size;
  out.base_offset = h.base_offset;
  out.last_offset = h.last_offset();
  uint16_t attributes = load_be16(p + bl::kAttributes);
  out.producer_id = static_cast<int64_t>(load_be64(p + bl::kProducerId));
  out.is_transactional = attributes & bl::kTransactionalBit;
  out.is_control = attributes & bl::kControlBit;
  out.is_abort_marker = false;
  if (out.is_control && h.size <= 4096) {
    const uint8_t* whole = chunks.get(pos, h.size);
    if (whole) {
      std::vector<uint8_t> copy(whole, whole + h.size);
      auto marker = storage::parse_marker(storage::RecordBatchView(std::span<uint8_t>(copy)));
      out.is_abort_marker = marker && !marker->commit;
    }
  }
  return true;
}

}  // namespace

Read read(const storage::Log& log, int64_t offset, size_t max_bytes, bool read_committed) {
  Read out;
  storage::Offset b = bound(log, read_committed);
  if (offset >= b.value || offset >= log.log_end_offset().value) return out;
  auto r = log.read(storage::Offset(offset), std::max<size_t>(1, max_bytes), b);
  if (!r) {
    out.error = to_error_code(r.error());
    return out;
  }
  out.slice = r->slice;
  if (out.slice.empty()) return out;
  const uint64_t end = static_cast<uint64_t>(out.slice.position) + out.slice.length;
  storage::ChunkReader chunks(out.slice.file->fd(), end, size_t{64} * 1024);
  uint64_t pos = static_cast<uint64_t>(out.slice.position);
  while (pos < end) {
    share::FetchedBatch fb;
    uint32_t size = 0;
    if (!read_header(chunks, pos, fb, size)) break;
    out.batches.push_back(fb);
    out.positions.push_back(pos);
    out.sizes.push_back(size);
    pos += size;
  }
  if (read_committed && !out.batches.empty()) {
    for (const auto& t : log.collect_aborted_txns(storage::Offset(offset), b))
      out.aborted.push_back({t.producer_id, t.first_offset});
  }
  return out;
}

size_t available_bytes(const storage::Log& log, int64_t offset, size_t want, bool read_committed) {
  storage::Offset b = bound(log, read_committed);
  if (offset < log.log_start_offset().value) return SIZE_MAX;  // moved under us: answer now
  if (offset >= b.value || offset >= log.log_end_offset().value) return 0;
  auto r = log.read(storage::Offset(offset), std::max<size_t>(1, want), b);
  return r ? r->slice.length : SIZE_MAX;
}

protocol::Records records_for(const Read& r, const std::vector<share::AcquiredRecords>& acquired) {
  if (acquired.empty() || r.batches.empty()) return protocol::Records::bytes({});
  int64_t first = acquired.front().first_offset, last = acquired.back().last_offset;
  size_t from = r.batches.size(), to = 0;
  for (size_t i = 0; i < r.batches.size(); ++i) {
    if (r.batches[i].last_offset >= first && from == r.batches.size()) from = i;
    if (r.batches[i].base_offset <= last) to = i;
  }
  if (from == r.batches.size() || to < from) return protocol::Records::bytes({});
  uint64_t pos = r.positions[from];
  uint64_t len = r.positions[to] + r.sizes[to] - pos;
  return protocol::Records::file_regions(
      {FileRegion{r.slice.file->fd(), static_cast<int64_t>(pos), static_cast<size_t>(len), r.slice.file}});
}

bool valid_acknowledgements(const std::vector<share::AcknowledgementBatch>& batches, bool supports_renew,
                            bool is_renew_ack) {
  int64_t prev_end = -1;
  const int max_type = supports_renew ? 4 : 3;
  for (const auto& b : batches) {
    if (b.first_offset > b.last_offset || b.first_offset < prev_end || b.acknowledge_types.empty()) return false;
    if (b.acknowledge_types.size() > 1 &&
        b.last_offset - b.first_offset != static_cast<int64_t>(b.acknowledge_types.size()) - 1)
      return false;
    for (int8_t t : b.acknowledge_types) {
      if (t < 0 || t > max_type) return false;
      if (t == 4 && !is_renew_ack) return false;
    }
    prev_end = b.last_offset;
  }
  return true;
}

std::string share_key(const std::string& group_id, const share::TopicIdPartition& tp) {
  std::string k = "share";
  k += '\0';
  k += group_id;
  k += '\0';
  k += tp.topic_id.to_string();
  k += '\0';
  k += std::to_string(tp.partition);
  return k;
}

std::function<void(const std::string&, const share::TopicIdPartition&)> share_fetch_waker(Purgatory* p) {
  return [p](const std::string& group_id, const share::TopicIdPartition& tp) {
    if (p && p->has_watchers()) p->on_event(share_key(group_id, tp));
  };
}

void acknowledge(BrokerServices& services, const ApiRequest& request, share::SharePartitionManager& shares,
                 const std::string& group_id, const std::string& member_id, std::vector<PartitionAcks> acks,
                 bool supports_renew, bool is_renew_ack, std::function<void(AckResults)> done) {
  AckResults answered;
  std::vector<std::pair<share::TopicIdPartition, std::vector<share::AcknowledgementBatch>>> interested;
  for (auto& a : acks) {
    if (!valid_acknowledgements(a.batches, supports_renew, is_renew_ack)) {
      answered.push_back({a.tp, {ErrorCode::kInvalidRequest, kInvalidRequestMessage}});
      continue;
    }
    auto info = services.logs.topic_by_id(a.tp.topic_id);
    if (info && !authorized_topic(services, request, AclOperation::kRead, info->name)) {
      answered.push_back({a.tp, {ErrorCode::kTopicAuthorizationFailed, "Topic authorization failed."}});
      continue;
    }
    if (!info || a.tp.partition < 0 || a.tp.partition >= info->partitions) {
      answered.push_back(
          {a.tp, {ErrorCode::kUnknownTopicOrPartition, "This server does not host this topic-partition."}});
      continue;
    }
    if (a.batches.empty()) {
      answered.push_back({a.tp, {}});
      continue;
    }
    interested.push_back({a.tp, std::move(a.batches)});
  }
  if (interested.empty()) {
    done(std::move(answered));
    return;
  }
  shares.acknowledge(group_id, member_id, interested,
                     [answered = std::move(answered), done = std::move(done)](AckResults r) mutable {
                       r.insert(r.end(), answered.begin(), answered.end());
                       done(std::move(r));
                     });
}

}  // namespace skiff::api::share_api
