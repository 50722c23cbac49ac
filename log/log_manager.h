// LogManager: all partition logs of this node, over one or more log dirs
// (log.dirs). Owns topic metadata (TopicStore), per-dir meta.properties,
// checkpoints, the clean-shutdown marker, and the background Scheduler.
//
// On-disk, per log dir:
//   meta.properties                    node.id / cluster.id (Kafka format)
//   recovery-point-offset-checkpoint   Kafka's checkpoint text format
//   log-start-offset-checkpoint        same format
//   .kafka_cleanshutdown               present only after a clean shutdown
//   cleaner-offset-checkpoint          the log cleaner's progress (same format)
//   <topic>-<partition>/               one Log (segments + partition.metadata)
// and in the first dir only: skiff-topics (TopicStore).
//
// Descriptors: segment files' descriptors live in one bounded FdCache
// (fd_cache.h) of config.fd_cache_capacity, so partitions cost memory, not
// descriptors. A cleanly stopped log is not recovered at load.
//
// Threads: every public method is thread-safe. get_log() and topic() are the
// hot-path lookups (a per-thread cache, no shared lock, no I/O). Admin operations (create/delete/alter) are
// serialised among themselves and do their I/O without blocking get_log().
#pragma once

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <string>
#include <vector>

#include "common/uuid.h"
#include "log/checkpoint_file.h"
#include "log/clean_log_state.h"
#include "log/log.h"
#include "log/log_cleaner_manager.h"
#include "log/log_config.h"
#include "log/meta_properties.h"
#include "log/replica_dir_mover.h"
#include "log/scheduler.h"
#include "log/topic_store.h"

namespace skiff::storage {

struct LogManagerConfig {
  std::vector<std::filesystem::path> log_dirs;          // log.dirs
  int32_t node_id = 1;                                  // node.id
  std::string cluster_id;                               // empty: generated on first start, then kept
  LogConfig defaults;                                   // broker-level log defaults
  int64_t retention_check_interval_ms = 300000;         // log.retention.check.interval.ms
  int64_t flush_scheduler_interval_ms = 1000;           // how often flush.ms / rolled flushes are checked
  int64_t flush_offset_checkpoint_interval_ms = 60000;  // log.flush.offset.checkpoint.interval.ms
  int64_t flush_start_offset_checkpoint_interval_ms = 60000;
  int64_t max_partitions = INT32_MAX;  // skiff.max.partitions: creation beyond it is refused
  // Most segment-file descriptors kept open (the FdCache bound, shared by
  // every partition); the broker derives it from RLIMIT_NOFILE at startup.
  size_t fd_cache_capacity = 4096;
  // Log cleaner threads (log_cleaner_manager.h) for cleanup.policy=compact.
  // log.cleaner.enable (the broker sets it from its config; off for bare tests).
  bool cleaner_enable = false;
  LogCleanerManagerConfig cleaner;
  // The broker's side of the topic checks (TopicConfigContext,
  // log/topic_config_def.h): remote.log.storage.system.enable, and the broker
  // defaults of the topic keys `defaults` does not hold (remote.copy.lag.ms/
  // .bytes from log.remote.copy.lag.*). With the system off,
  // remote.storage.enable=true is refused by create and alter, and a stored
  // topic with it loads with remote storage off and an error logged (Kafka).
  bool remote_storage_system_enabled = false;
  std::map<std::string, std::string> topic_key_defaults;
};

// What create_topic made (or, validate_only, would make).
struct CreatedTopic {
  Uuid topic_id;
  std::shared_ptr<const LogConfig> config;
};

class LogManager {
 public:
  // Verifies/creates meta.properties, loads topics, opens and (after an
  // unclean stop) recovers every log. Throws on unusable dirs, node id
  // mismatch, or corruption that recovery cannot handle.
  explicit LogManager(LogManagerConfig config);
  ~LogManager();  // shutdown() if not done

  void start();     // background scheduler
  void stop();      // stop the scheduler only
  void shutdown();  // stop, close logs, checkpoint, write clean-shutdown markers

  // A new topic: its id and effective config. The Error's message is the
  // client's (kInvalidTopic, kInvalidPartitions, kTopicAlreadyExists,
  // kInvalidConfig, kPolicyViolation, kStorageError).
  Result<CreatedTopic> create_topic(const std::string& name, int32_t partitions,
                                    const std::map<std::string, std::string>& overrides = {},
                                    bool validate_only = false);
  // Grows a topic to `total_partitions`. Both creations are all or nothing
  // (a failure part way removes what it made) and refuse, with
  // kPolicyViolation, to go beyond max_partitions in all.
  Result<void> create_partitions(const std::string& name, int32_t total_partitions, bool validate_only = false);
  // Removes the topic and its data; the name is reusable at once.
  // kUnknownTopicOrPartition, or kStorageError if its metadata could not be written.
  Result<void> delete_topic(const std::string& name);
  // The config a topic with these overrides would have (CreateTopics'
  // validate-only answer), checked as create_topic checks it.
  Result<LogConfig> new_topic_config(const std::map<std::string, std::string>& overrides) const;
  // Replaces the topic's overrides (live: appends see it from the next call).
  Result<void> alter_topic_config(const std::string& name, const std::map<std::string, std::string>& overrides,
                                  bool validate_only = false);

  // New broker-level defaults (dynamic broker configs): every topic's config
  // is rebuilt from them and its own overrides, live. Fails, changing
  // nothing, when a topic's overrides are not valid over the new defaults.
  Result<void> set_defaults(const LogConfig& defaults, bool validate_only = false);

  std::shared_ptr<Log> get_log(const std::string& topic, int32_t partition) const;
  std::optional<TopicInfo> topic(const std::string& name) const;
  std::optional<TopicInfo> topic_by_id(const Uuid& id) const;
  std::vector<TopicInfo> list_topics() const;
  // Moves whenever a topic is created, deleted or grown (and on other
  // changes of the topic maps: configs, a replica moving dirs). Consumers
  // of the topic set (regex subscriptions) compare it to know when to look
  // again; it starts again from 0 in each process.
  uint64_t topics_generation() const { return generation_.load(std::memory_order_acquire); }
  std::shared_ptr<const LogConfig> topic_config(const std::string& name) const;

  const std::string& cluster_id() const { return cluster_id_; }
  // The descriptor cache of every segment file (stats, tests).
  const FdCache& fd_cache() const { return *fd_cache_; }
  int32_t node_id() const { return config_.node_id; }
  LogConfig defaults() const {
    std::shared_lock lk(mu_);
    return config_.defaults;
  }

  // The scheduler's jobs, callable directly (tests, admin).
  int run_retention(int64_t now_ms);
  void run_flushes(int64_t now_ms);
  void checkpoint_recovery_points();
  void checkpoint_log_start_offsets();

  // Kafka's topic name rules; the error (kInvalidTopic) says which one fails.
  static Result<void> valid_topic_name(const std::string& name);

  const std::vector<std::filesystem::path>& log_dirs() const { return config_.log_dirs; }
  // Moves between log dirs (AlterReplicaLogDirs; replica_dir_mover.h).
  ReplicaDirMover& replica_mover() { return *mover_; }

 private:
  friend class ReplicaDirMover;  // swaps a moved partition's log in (logs_, admin_mu_)
  struct LogEntry {
    std::shared_ptr<Log> log;
    size_t dir_index;
  };
  void init_dirs();
  void write_pending_meta();
  void load_topic_configs();  // caller: load_logs, topics_ set
  void load_logs();
  // fresh: a new partition; any leftover directory of that name is wiped.
  // listed: load_logs saw its directory (no need to look again).
  std::shared_ptr<Log> open_log(size_t dir_index, const TopicPartition& tp, std::shared_ptr<const LogConfig> cfg,
                                const Uuid& topic_id, bool fresh = false, bool listed = false);
  size_t pick_dir() const;  // caller holds mu_
  // Opens new, empty partitions [from, to) of a topic, each in the dir with
  // the fewest partitions; on failure removes what it made and rethrows.
  std::vector<std::pair<TopicPartition, LogEntry>> open_new_partitions(const std::string& topic, int32_t from,
                                                                       int32_t to,
                                                                       const std::shared_ptr<const LogConfig>& cfg,
                                                                       const Uuid& topic_id);
  void discard_new_partitions(std::vector<std::pair<TopicPartition, LogEntry>>& created,
                              const std::filesystem::path& half_made = {});
  std::vector<std::pair<TopicPartition, LogEntry>> all_logs() const;
  // kPolicyViolation (and why) if `adding` more partitions would exceed
  // max_partitions. Caller holds admin_mu_.
  Result<void> check_partition_limit(int64_t adding) const;
  void close_logs(const std::vector<std::pair<TopicPartition, LogEntry>>& logs);
  // After close_logs: each dir's record of its logs' clean close.
  void write_clean_states(const std::vector<std::pair<TopicPartition, LogEntry>>& logs);
  Result<void> persist_topics(const std::map<std::string, TopicInfo>& topics);

  LogManagerConfig config_;
  const std::shared_ptr<FdCache> fd_cache_;
  std::string cluster_id_;
  std::vector<bool> clean_;  // per dir, at load
  // Per dir, what the last clean close recorded (clean_log_state.h); read
  // in init_dirs for clean dirs, emptied once the logs are loaded.
  std::vector<CleanLogStates> clean_states_;
  // Per dir, at load: its boot marker names this boot (boot_marker.h).
  std::vector<bool> same_boot_;
  // meta.properties a full disk kept us from writing at start (by dir index);
  // retried with each recovery point checkpoint. Guarded by checkpoint_mu_.
  std::map<size_t, MetaProperties> pending_meta_;
  // Per dir, the checkpoints read at start; emptied once the logs are loaded.
  std::vector<std::map<TopicPartition, int64_t>> recovery_points_;
  std::vector<std::map<TopicPartition, int64_t>> start_offsets_;
  std::unique_ptr<TopicStore> store_;

  std::mutex admin_mu_;       // serialises admin operations
  std::mutex checkpoint_mu_;  // serialises checkpoint file writes
  // get_log() and topic() are on every Produce and Fetch: they take no lock
  // shared across partitions. Each thread keeps its own copy of what it
  // looked up (log_manager.cc), valid while generation_ has not moved; every
  // change to the maps below bumps it while holding mu_ exclusively.
  const uint64_t instance_id_;
  std::atomic<uint64_t> generation_{0};
  struct CachedTopic;
  const CachedTopic& cached_topic(const std::string& name) const;

  // Replaces topics_ and its id index; caller holds mu_ exclusively.
  void set_topics(std::map<std::string, TopicInfo> topics);

  mutable std::shared_mutex mu_;  // guards the maps below
  std::map<std::string, TopicInfo> topics_;
  std::map<Uuid, std::string> names_by_id_;  // topics_ by topic id (Produce/Fetch v13+ name topics by id)
  std::map<std::string, std::shared_ptr<const LogConfig>> topic_configs_;
  std::map<TopicPartition, LogEntry> logs_;
  std::vector<size_t> partitions_per_dir_;

  Scheduler scheduler_;
  std::unique_ptr<LogCleanerManager> cleaner_;  // null when cleaner_enable is off
  std::unique_ptr<ReplicaDirMover> mover_;
  bool shut_down_ = false;
};

}  // namespace skiff::storage
