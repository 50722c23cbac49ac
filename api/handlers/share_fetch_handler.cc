#include "api/handlers/share_fetch_handler.h"

#include <algorithm>
#include <climits>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>

#include "api/authorize.h"
#include "api/purgatory.h"
#include "api/share_api.h"
#include "api/topics.h"

namespace skiff::api {
namespace {

using protocol::ShareFetchRequest;
using protocol::ShareFetchResponse;
using share::ShareResult;
using share::TopicIdPartition;

// Kafka's fetch.max.bytes default: the most one fetch answers.
constexpr int32_t kFetchMaxBytes = 57671680;

ShareFetchResponse fetch_error_response(ErrorCode e, std::string message) {
  ShareFetchResponse r;
  r.error_code = code(e);
  r.error_message = std::move(message);
  return r;
}

ShareFetchResponse::PartitionData empty_partition(int32_t index) {
  ShareFetchResponse::PartitionData pd;
  pd.partition_index = index;
  pd.records = protocol::Records::bytes({});
  pd.current_leader.leader_id = -1;
  pd.current_leader.leader_epoch = -1;
  return pd;
}

struct FetchPartition {
  TopicIdPartition tp;
  std::shared_ptr<storage::Log> log;
};

// One share fetch after its session step: what the immediate attempt and the
// delayed one share. ready() may run on several threads at once; build()
// runs once.
struct ShareFetchState {
  share::SharePartitionManager& shares;
  std::string group;
  std::string member;
  share::ShareSessionKey key;
  bool subsequent = false;
  bool final = false;
  bool renew = false;
  int32_t request_epoch = 0;
  share::AcquireMode mode = share::AcquireMode::kBatchOptimized;
  int32_t max_records = 0;
  int32_t batch_size = 0;
  size_t min_bytes = 0;
  size_t max_bytes = 0;
  bool read_committed = false;
  int32_t lock_ms = 0;
  std::vector<FetchPartition> partitions;
  std::vector<std::pair<TopicIdPartition, ShareResult>> errors;  // partitions answered with an error
  share_api::AckResults acks;
  std::mutex mu;
  std::vector<std::pair<TopicIdPartition, ShareResult>> load_errors;  // guarded by mu

  explicit ShareFetchState(share::SharePartitionManager& s) : shares(s) {}

  void start_loads(const std::shared_ptr<ShareFetchState>& self) {
    for (const auto& p : partitions) {
      TopicIdPartition tp = p.tp;
      shares.maybe_initialize(group, tp, [self, tp](ShareResult r) {
        if (r.ok()) return;
        std::lock_guard l(self->mu);
        self->load_errors.push_back({tp, std::move(r)});
      });
    }
  }

  bool ready() {
    if (min_bytes == 0) return true;  // Kafka: minBytes 0 is met at once
    {
      std::lock_guard l(mu);
      if (!load_errors.empty()) return true;
    }
    size_t total = 0;
    for (const auto& p : partitions) {
      shares.with_partition(
          group, p.tp,
          [&](share::SharePartition& sp) {
            if (!sp.can_acquire_records()) return;
            size_t n = share_api::available_bytes(*p.log, sp.next_fetch_offset(), std::max<size_t>(1, min_bytes),
                                                  read_committed);
            total = n > SIZE_MAX - total ? SIZE_MAX : total + n;
          },
          true);
      if (total >= min_bytes) return true;
    }
    return false;
  }

  // Reads and acquires one partition into pd; the records acquired.
  int32_t acquire(const FetchPartition& p, size_t max_bytes_here, int32_t remaining,
                  ShareFetchResponse::PartitionData& pd) {
    int32_t got = 0;
    shares.with_partition(group, p.tp, [&](share::SharePartition& sp) {
      int64_t offset = sp.next_fetch_offset();
      int64_t log_start = p.log->log_start_offset().value;
      if (offset < log_start) {  // records removed under the share partition
        sp.update_cache_and_offsets(log_start);
        offset = sp.next_fetch_offset();
      }
      share_api::Read read = share_api::read(*p.log, offset, max_bytes_here, read_committed);
      if (read.error != ErrorCode::kNone) {
        pd.error_code = code(read.error);
        return;
      }
      if (read.batches.empty()) return;
      share::ShareAcquiredRecords acquired =
          sp.acquire(member, mode, batch_size, remaining, offset, read.batches, read.aborted, read_committed);
      if (acquired.records.empty()) return;
      for (const auto& a : acquired.records)
        pd.acquired_records.push_back({a.first_offset, a.last_offset, a.delivery_count, {}});
      pd.records = share_api::records_for(read, acquired.records);
      got = acquired.count;
    });
    return got;
  }

  ShareFetchResponse build() {
    ShareFetchResponse resp;
    resp.acquisition_lock_timeout_ms = lock_ms;
    if (subsequent && shares.sessions().epoch(key) != share::next_share_session_epoch(request_epoch))
      return fetch_error_response(ErrorCode::kInvalidShareSessionEpoch, share::kInvalidShareSessionEpoch);
    std::vector<std::pair<TopicIdPartition, ShareFetchResponse::PartitionData>> parts;
    std::map<TopicIdPartition, ShareResult> failed;
    {
      std::lock_guard l(mu);
      for (auto& [tp, r] : load_errors) failed[tp] = r;
    }
    int32_t remaining = max_records;
    const size_t per_partition = partitions.empty() ? max_bytes : std::max<size_t>(1, max_bytes / partitions.size());
    for (const auto& p : partitions) {
      auto pd = empty_partition(p.tp.partition);
      auto f = failed.find(p.tp);
      if (f != failed.end()) {
        pd.error_code = code(f->second.code);
        pd.error_message = f->second.message;
      } else if (remaining > 0) {
        remaining -= acquire(p, per_partition, remaining, pd);
      }
      parts.push_back({p.tp, std::move(pd)});
    }
    for (const auto& [tp, r] : errors) {
      auto pd = empty_partition(tp.partition);
      pd.error_code = code(r.code);
      pd.error_message = r.message;
      parts.push_back({tp, std::move(pd)});
    }
    for (const auto& [tp, pd] : parts)  // Kafka's FailedShareFetchRequestsPerSec: per failed partition
      if (pd.error_code != 0) shares.metrics().failed_share_fetch_requests().add();
    if (subsequent) {  // incremental: what changed only
      std::erase_if(parts, [&](const auto& e) {
        return !shares.sessions().must_respond(key, e.first, !e.second.acquired_records.empty(),
                                               e.second.error_code != 0);
      });
    }
    for (const auto& ack : acks) {
      const TopicIdPartition& tp = ack.first;
      const ShareResult& r = ack.second;
      auto it = std::find_if(parts.begin(), parts.end(), [&](const auto& e) { return e.first == tp; });
      if (it == parts.end()) {
        parts.push_back({tp, empty_partition(tp.partition)});
        it = std::prev(parts.end());
      }
      it->second.acknowledge_error_code = code(r.code);
      if (!r.ok()) it->second.acknowledge_error_message = r.message;
    }
    std::map<Uuid, size_t> index;
    for (auto& [tp, pd] : parts) {
      auto [it, added] = index.try_emplace(tp.topic_id, resp.responses.size());
      if (added) {
        resp.responses.emplace_back();
        resp.responses.back().topic_id = tp.topic_id;
      }
      resp.responses[it->second].partitions.push_back(std::move(pd));
    }
    return resp;
  }

  // Sends the answer; a final fetch then closes the session.
  void answer(Responder& out) {
    out.send(build());
    if (final) {
      shares.release_session(group, member, [](const ShareResult&, const share::SharePartitionManager::AckResults&) {});
    }
  }
};

class DelayedShareFetch : public DelayedOperation {
 public:
  DelayedShareFetch(std::shared_ptr<ShareFetchState> state, Responder out)
      : state_(std::move(state)), out_(std::move(out)) {}

 protected:
  bool ready() override { return state_->ready(); }
  void complete() override { state_->answer(out_); }

 private:
  std::shared_ptr<ShareFetchState> state_;
  Responder out_;
};

// SHARE_SESSION_LIMIT_REACHED waits max_wait_ms before it is answered, as
// Kafka does, so that a client over the limit does not spin.
class DelayedError : public DelayedOperation {
 public:
  DelayedError(ShareFetchResponse resp, Responder out) : resp_(std::move(resp)), out_(std::move(out)) {}

 protected:
  bool ready() override { return false; }
  void complete() override { out_.send(resp_); }

 private:
  ShareFetchResponse resp_;
  Responder out_;
};

// The renew-ack request's limits (ShareFetch v2): every fetch size 0.
std::string renew_errors(const ShareFetchRequest& body) {
  std::string msg;
  if (body.max_bytes != 0) msg += "maxBytes must be set to 0, ";
  if (body.min_bytes != 0) msg += "minBytes must be set to 0, ";
  if (body.max_records != 0) msg += "maxRecords must be set to 0, ";
  if (body.max_wait_ms != 0) msg += "maxWaitMs must be set to 0, ";
  if (!msg.empty()) msg += "if isRenewAck is true.";
  return msg;
}

// Kafka's request-level checks, in its order; the error answer or nothing.
std::optional<ShareFetchResponse> check_request(BrokerServices& services, const ApiRequest& request,
                                                const ShareFetchRequest& body) {
  if (!body.group_id) return fetch_error_response(ErrorCode::kInvalidRequest, "Invalid group id in the request.");
  if (!authorized_group(services, request, AclOperation::kRead, *body.group_id))
    return fetch_error_response(ErrorCode::kGroupAuthorizationFailed, "Group authorization failed.");
  const std::string member = body.member_id.value_or("");
  if (member.empty() || member.size() > 36)
    return fetch_error_response(ErrorCode::kInvalidRequest, "Invalid member id in the request.");
  if (request.api_version() >= 2 && body.is_renew_ack) {
    std::string msg = renew_errors(body);
    if (!msg.empty()) return fetch_error_response(ErrorCode::kInvalidRequest, msg);
  }
  return std::nullopt;
}

// The partitions to fetch and forget, and the acknowledgements carried.
void collect(const ShareFetchRequest& body, std::vector<TopicIdPartition>& to_fetch,
             std::vector<TopicIdPartition>& to_forget, std::vector<share_api::PartitionAcks>& acks) {
  for (const auto& t : body.topics) {
    for (const auto& p : t.partitions) {
      TopicIdPartition tp{t.topic_id, p.partition_index};
      to_fetch.push_back(tp);
      if (p.acknowledgement_batches.empty()) continue;
      share_api::PartitionAcks a{tp, {}};
      for (const auto& b : p.acknowledgement_batches)
        a.batches.push_back({b.first_offset, b.last_offset, b.acknowledge_types});
      acks.push_back(std::move(a));
    }
  }
  for (const auto& t : body.forgotten_topics_data)
    for (int32_t p : t.partitions) to_forget.push_back({t.topic_id, p});
}

std::shared_ptr<ShareFetchState> make_state(share::SharePartitionManager& shares, const ShareFetchRequest& body,
                                            int16_t version, const share::ShareSessionCache::Context& ctx) {
  auto state = std::make_shared<ShareFetchState>(shares);
  const std::string group = *body.group_id;
  const share::ShareGroupSettings settings = shares.config().settings(group);
  state->group = group;
  state->member = body.member_id.value_or("");
  state->key = {group, state->member};
  state->subsequent = ctx.subsequent;
  state->final = ctx.final;
  state->renew = version >= 2 && body.is_renew_ack;
  state->request_epoch = body.share_session_epoch;
  state->mode = version >= 2 && body.share_acquire_mode == 1 ? share::AcquireMode::kRecordLimit
                                                             : share::AcquireMode::kBatchOptimized;
  state->max_records = body.max_records;
  state->batch_size = body.batch_size;
  state->max_bytes = static_cast<size_t>(std::max(0, std::min(body.max_bytes, kFetchMaxBytes)));
  state->min_bytes = std::min(static_cast<size_t>(std::max(0, body.min_bytes)), state->max_bytes);
  state->read_committed = settings.read_committed;
  state->lock_ms = settings.record_lock_duration_ms;
  return state;
}

// The session's partitions: to fetch, or answered with their error.
void resolve(BrokerServices& services, const ApiRequest& request, ShareFetchState& state,
             const std::vector<TopicIdPartition>& partitions) {
  if (state.final || state.renew) return;
  for (const TopicIdPartition& tp : partitions) {
    auto info = services.logs.topic_by_id(tp.topic_id);
    if (!info) {
      state.errors.push_back({tp, {ErrorCode::kUnknownTopicId, "This server does not host this topic ID."}});
    } else if (!authorized_topic(services, request, AclOperation::kRead, info->name)) {
      state.errors.push_back({tp, {ErrorCode::kTopicAuthorizationFailed, "Topic authorization failed."}});
    } else if (auto log = find_log(services, info->name, tp.partition); !log) {
      state.errors.push_back(
          {tp, {ErrorCode::kUnknownTopicOrPartition, "This server does not host this topic-partition."}});
    } else {
      state.partitions.push_back({tp, std::move(log)});
    }
  }
}

// After the acknowledgements: answer now, or wait in the purgatory.
void fetch_or_wait(const std::shared_ptr<ShareFetchState>& state, Purgatory* purgatory, int32_t max_wait,
                   Responder out) {
  if (state->partitions.empty()) {
    state->answer(out);
    return;
  }
  state->start_loads(state);
  if (max_wait <= 0 || !purgatory || state->ready()) {
    state->answer(out);
    return;
  }
  std::vector<std::string> keys;
  for (const auto& p : state->partitions) {
    keys.push_back(partition_key(p.log->topic(), p.tp.partition));
    keys.push_back(share_api::share_key(state->group, p.tp));
  }
  purgatory->add(std::make_shared<DelayedShareFetch>(state, std::move(out)), std::move(keys),
                 std::chrono::milliseconds(max_wait));
}

}  // namespace

void ShareFetchHandler::handle(ApiRequest& request, ShareFetchRequest& body, Responder& out) {
  if (auto error = check_request(services_, request, body)) {
    out.send(*error);
    return;
  }
  std::vector<TopicIdPartition> to_fetch, to_forget;
  std::vector<share_api::PartitionAcks> acks;
  collect(body, to_fetch, to_forget, acks);
  const std::string group = *body.group_id;
  const std::string member = body.member_id.value_or("");
  auto ctx = shares_.sessions().new_context(group, member, body.share_session_epoch, to_fetch, to_forget, !acks.empty(),
                                            std::to_string(request.context().connection_id));
  if (!ctx.error.ok()) {
    auto resp = fetch_error_response(ctx.error.code, ctx.error.message);
    if (ctx.error.code == ErrorCode::kShareSessionLimitReached && body.max_wait_ms > 0 && services_.fetch_purgatory) {
      services_.fetch_purgatory->add(std::make_shared<DelayedError>(std::move(resp), std::move(out)), {},
                                     std::chrono::milliseconds(body.max_wait_ms));
    } else {
      out.send(resp);
    }
    return;
  }
  std::set<Uuid> topics;  // Kafka's TotalShareFetchRequestsPerSec: once per topic fetched
  for (const auto& tp : ctx.context.partitions) topics.insert(tp.topic_id);
  shares_.metrics().share_fetch_requests().add(topics.size());
  const int16_t version = request.api_version();
  auto state = make_state(shares_, body, version, ctx.context);
  resolve(services_, request, *state, ctx.context.partitions);
  Purgatory* purgatory = services_.fetch_purgatory;
  const int32_t max_wait = body.max_wait_ms;
  share_api::acknowledge(services_, request, shares_, group, member, std::move(acks), version >= 2, state->renew,
                         [state, purgatory, max_wait, out](share_api::AckResults results) mutable {
                           state->acks = std::move(results);
                           fetch_or_wait(state, purgatory, max_wait, std::move(out));
                         });
}

ShareFetchResponse ShareFetchHandler::error_response(const ShareFetchRequest&, ErrorCode error) {
  ShareFetchResponse r;
  r.error_code = code(error);
  return r;
}

}  // namespace skiff::api
