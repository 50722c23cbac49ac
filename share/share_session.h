// ShareSessionCache: the share sessions of KIP-932 (Kafka's ShareSessionCache
// with SharePartitionManager.newContext / acknowledgeSessionUpdate /
// releaseSession's session part). A session is keyed by (group id, member
// id) and holds the partitions the member fetches; its epoch starts at 1
// when created by a request of epoch 0 and moves by one each request.
// Request epochs: 0 opens a session (replacing the member's old one), -1
// closes it, n continues it (must equal the session's epoch).
//
// Errors (Kafka's messages):
//   SHARE_SESSION_NOT_FOUND      "The share session was not found."
//   INVALID_SHARE_SESSION_EPOCH  "The share session epoch is invalid."
//   SHARE_SESSION_LIMIT_REACHED  "The limit of share sessions has been reached."
//   INVALID_REQUEST              acknowledgements in an opening (epoch 0) ShareFetch
// Eviction as Kafka 4.4: never by age; a session goes when its member closes
// it (epoch -1), opens a new one, or its connection closes.
//
// Threads: every method takes the cache's mutex; any thread.
#pragma once

#include <compare>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common/uuid.h"
#include "share/share_partition.h"

namespace skiff::share {

struct TopicIdPartition {
  Uuid topic_id;
  int32_t partition = 0;
  auto operator<=>(const TopicIdPartition&) const = default;
};

struct ShareSessionKey {
  std::string group_id;
  std::string member_id;
  auto operator<=>(const ShareSessionKey&) const = default;
};

inline constexpr const char* kShareSessionNotFound = "The share session was not found.";
inline constexpr const char* kInvalidShareSessionEpoch = "The share session epoch is invalid.";
inline constexpr const char* kShareSessionLimitReached = "The limit of share sessions has been reached.";
inline constexpr const char* kInvalidRequestDefault =
    "This most likely occurs because of a request being malformed by the client library or the message was sent to "
    "an incompatible broker. See the broker logs for more details.";

// Kafka's ShareRequestMetadata.nextEpoch.
int32_t next_share_session_epoch(int32_t epoch);

class ShareSessionCache {
 public:
  explicit ShareSessionCache(int32_t max_entries) : max_entries_(max_entries) {}

  // What a ShareFetch works on (Kafka's ShareFetchContext).
  struct Context {
    bool final = false;       // epoch -1: acknowledge, then close the session
    bool subsequent = false;  // an existing session continued
    int32_t request_epoch = 0;
    std::vector<TopicIdPartition> partitions;  // the session's partitions (fetch these)
  };
  struct ContextResult {
    ShareResult error;  // top-level error when not ok
    Context context;
  };
  ContextResult new_context(const std::string& group_id, const std::string& member_id, int32_t epoch,
                            const std::vector<TopicIdPartition>& to_fetch,
                            const std::vector<TopicIdPartition>& to_forget, bool acknowledge_data_present,
                            const std::string& connection_id);

  // Whether an incremental response must carry a partition, updating the
  // session's "must answer" marks (Kafka's CachedSharePartition: records, a
  // new error, or the first answer after an error).
  bool must_respond(const ShareSessionKey& key, const TopicIdPartition& tp, bool has_records, bool has_error);

  // The session's epoch as it stands (-1: none); responses of a continued
  // session check it is next_epoch(request epoch).
  int32_t epoch(const ShareSessionKey& key) const;

  // ShareAcknowledge's session check (Kafka's acknowledgeSessionUpdate).
  ShareResult acknowledge_session_update(const std::string& group_id, const std::string& member_id, int32_t epoch);

  // Removes the session; its partitions, or nullopt when there was none.
  std::optional<std::vector<TopicIdPartition>> remove(const ShareSessionKey& key);

  // The connection closed: its session (if still current) is removed.
  // Returns the key removed and whether its group has no session left.
  struct Disconnected {
    ShareSessionKey key;
    std::vector<TopicIdPartition> partitions;
    bool member_left = false;
    bool group_empty = false;
  };
  std::optional<Disconnected> on_disconnect(const std::string& connection_id);

  // Removes every session (Kafka's removeAllSessions: share groups were
  // turned off by share.version 0).
  void remove_all();

  size_t size() const;
  int64_t total_partitions() const;
  int32_t num_members(const std::string& group_id) const;
  std::optional<std::vector<TopicIdPartition>> partitions(const ShareSessionKey& key) const;

 private:
  struct Cached {
    TopicIdPartition tp;
    bool requires_update = false;
  };
  struct Session {
    std::vector<Cached> partitions;  // insertion order; records move a partition to the end
    int32_t epoch = 1;
    std::string connection_id;
  };
  std::optional<std::vector<TopicIdPartition>> remove_locked(const ShareSessionKey& key);
  static std::vector<TopicIdPartition> list(const Session& s);

  const int32_t max_entries_;
  mutable std::mutex mu_;
  std::map<ShareSessionKey, Session> sessions_;
  std::map<std::string, int32_t> members_per_group_;
  std::map<std::string, std::pair<ShareSessionKey, bool>> by_connection_;  // key, stale
  int64_t num_partitions_ = 0;
};

}  // namespace skiff::share
