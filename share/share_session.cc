// ShareSessionCache: see the header.
#include "share/share_session.h"

#include <algorithm>
#include <limits>

namespace skiff::share {

int32_t next_share_session_epoch(int32_t epoch) {
  if (epoch < 0) return -1;  // the final epoch stays final
  if (epoch == std::numeric_limits<int32_t>::max()) return 1;
  return epoch + 1;
}

std::vector<TopicIdPartition> ShareSessionCache::list(const Session& s) {
  std::vector<TopicIdPartition> out;
  out.reserve(s.partitions.size());
  for (const Cached& c : s.partitions) out.push_back(c.tp);
  return out;
}

ShareSessionCache::ContextResult ShareSessionCache::new_context(const std::string& group_id,
                                                                const std::string& member_id, int32_t epoch,
                                                                const std::vector<TopicIdPartition>& to_fetch,
                                                                const std::vector<TopicIdPartition>& to_forget,
                                                                bool acknowledge_data_present,
                                                                const std::string& connection_id) {
  std::lock_guard lock(mu_);
  ShareSessionKey key{group_id, member_id};
  ContextResult out;
  out.context.request_epoch = epoch;
  if (epoch == -1) {
    auto it = sessions_.find(key);
    if (it == sessions_.end()) return {{ErrorCode::kShareSessionNotFound, kShareSessionNotFound}, {}};
    out.context.final = true;
    return out;
  }
  if (epoch == 0) {
    if (acknowledge_data_present) {
      return {{ErrorCode::kInvalidRequest, kInvalidRequestDefault}, {}};
    }
    remove_locked(key);
    if (static_cast<int32_t>(sessions_.size()) >= max_entries_) {
      return {{ErrorCode::kShareSessionLimitReached, kShareSessionLimitReached}, {}};
    }
    Session s;
    s.epoch = next_share_session_epoch(0);
    s.connection_id = connection_id;
    for (const TopicIdPartition& tp : to_fetch) {
      bool dup = std::any_of(s.partitions.begin(), s.partitions.end(), [&](const Cached& c) { return c.tp == tp; });
      if (!dup) s.partitions.push_back({tp, false});
    }
    num_partitions_ += static_cast<int64_t>(s.partitions.size());
    out.context.partitions = list(s);
    sessions_[key] = std::move(s);
    ++members_per_group_[group_id];
    by_connection_[connection_id] = {key, false};
    return out;
  }
  auto it = sessions_.find(key);
  if (it == sessions_.end()) return {{ErrorCode::kShareSessionNotFound, kShareSessionNotFound}, {}};
  Session& s = it->second;
  if (s.epoch != epoch) return {{ErrorCode::kInvalidShareSessionEpoch, kInvalidShareSessionEpoch}, {}};
  int64_t before = static_cast<int64_t>(s.partitions.size());
  for (const TopicIdPartition& tp : to_fetch) {
    bool known = std::any_of(s.partitions.begin(), s.partitions.end(), [&](const Cached& c) { return c.tp == tp; });
    if (!known) s.partitions.push_back({tp, true});
  }
  for (const TopicIdPartition& tp : to_forget) {
    std::erase_if(s.partitions, [&](const Cached& c) { return c.tp == tp; });
  }
  num_partitions_ += static_cast<int64_t>(s.partitions.size()) - before;
  s.epoch = next_share_session_epoch(s.epoch);
  out.context.subsequent = true;
  out.context.partitions = list(s);
  return out;
}

bool ShareSessionCache::must_respond(const ShareSessionKey& key, const TopicIdPartition& tp, bool has_records,
                                     bool has_error) {
  std::lock_guard lock(mu_);
  auto it = sessions_.find(key);
  if (it == sessions_.end()) return true;
  auto& parts = it->second.partitions;
  auto c = std::find_if(parts.begin(), parts.end(), [&](const Cached& x) { return x.tp == tp; });
  if (c == parts.end()) return true;
  bool must = has_records;
  if (c->requires_update) {
    must = true;
    c->requires_update = false;
  }
  if (has_error) {
    c->requires_update = true;
    must = true;
  }
  if (has_records) {  // rotate: partitions that answered go last
    Cached moved = *c;
    parts.erase(c);
    parts.push_back(moved);
  }
  return must;
}

int32_t ShareSessionCache::epoch(const ShareSessionKey& key) const {
  std::lock_guard lock(mu_);
  auto it = sessions_.find(key);
  return it == sessions_.end() ? -1 : it->second.epoch;
}

ShareResult ShareSessionCache::acknowledge_session_update(const std::string& group_id, const std::string& member_id,
                                                          int32_t epoch) {
  if (epoch == 0) return {ErrorCode::kInvalidShareSessionEpoch, kInvalidShareSessionEpoch};
  std::lock_guard lock(mu_);
  auto it = sessions_.find({group_id, member_id});
  if (it == sessions_.end()) return {ErrorCode::kShareSessionNotFound, kShareSessionNotFound};
  if (epoch == -1) return {};
  if (it->second.epoch != epoch) return {ErrorCode::kInvalidShareSessionEpoch, kInvalidShareSessionEpoch};
  it->second.epoch = next_share_session_epoch(it->second.epoch);
  return {};
}

std::optional<std::vector<TopicIdPartition>> ShareSessionCache::remove_locked(const ShareSessionKey& key) {
  auto it = sessions_.find(key);
  if (it == sessions_.end()) return std::nullopt;
  std::vector<TopicIdPartition> parts = list(it->second);
  num_partitions_ -= static_cast<int64_t>(parts.size());
  auto m = members_per_group_.find(key.group_id);
  if (m != members_per_group_.end() && m->second > 0) --m->second;
  auto c = by_connection_.find(it->second.connection_id);
  if (c != by_connection_.end() && c->second.first == key) c->second.second = true;  // stale
  sessions_.erase(it);
  return parts;
}

std::optional<std::vector<TopicIdPartition>> ShareSessionCache::remove(const ShareSessionKey& key) {
  std::lock_guard lock(mu_);
  return remove_locked(key);
}

void ShareSessionCache::remove_all() {
  std::lock_guard lock(mu_);
  sessions_.clear();
  members_per_group_.clear();
  by_connection_.clear();
  num_partitions_ = 0;
}

std::optional<ShareSessionCache::Disconnected> ShareSessionCache::on_disconnect(const std::string& connection_id) {
  std::lock_guard lock(mu_);
  auto c = by_connection_.find(connection_id);
  if (c == by_connection_.end()) return std::nullopt;
  auto [key, stale] = c->second;
  by_connection_.erase(c);
  Disconnected out;
  out.key = key;
  if (!stale) {
    auto parts = remove_locked(key);
    if (parts) {
      out.partitions = std::move(*parts);
      out.member_left = true;
    }
  }
  auto m = members_per_group_.find(key.group_id);
  if (m == members_per_group_.end() || m->second == 0) {
    if (m != members_per_group_.end()) members_per_group_.erase(m);
    out.group_empty = true;
  }
  return out;
}

size_t ShareSessionCache::size() const {
  std::lock_guard lock(mu_);
  return sessions_.size();
}

int64_t ShareSessionCache::total_partitions() const {
  std::lock_guard lock(mu_);
  return num_partitions_;
}

int32_t ShareSessionCache::num_members(const std::string& group_id) const {
  std::lock_guard lock(mu_);
  auto m = members_per_group_.find(group_id);
  return m == members_per_group_.end() ? 0 : m->second;
}

std::optional<std::vector<TopicIdPartition>> ShareSessionCache::partitions(const ShareSessionKey& key) const {
  std::lock_guard lock(mu_);
  auto it = sessions_.find(key);
  if (it == sessions_.end()) return std::nullopt;
  return list(it->second);
}

}  // namespace skiff::share
