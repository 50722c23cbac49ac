#include "log/log_manager.h"

#ifdef __GLIBC__
#include <malloc.h>
#endif

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <exception>
#include <stdexcept>
#include <system_error>
#include <thread>
#include <unordered_map>

#include "log/boot_marker.h"
#include "log/file_util.h"
#include "log/meta_properties.h"
#include "log/storage_log.h"
#include "log/topic_config_def.h"

namespace skiff::storage {

namespace fs = std::filesystem;

namespace {

// Kafka's partition.metadata: the topic id, so a dir can't be mistaken for
// a same-named topic's after a delete and re-create.
void write_partition_metadata(const fs::path& dir, const Uuid& id) {
  write_file_durably(dir / "partition.metadata", fmt::format("version: 0\ntopic_id: {}\n", id.to_string()));
}

bool parse_partition_dir(const std::string& name, TopicPartition& tp) {
  auto dash = name.rfind('-');
  if (dash == std::string::npos || dash == 0 || dash + 1 == name.size()) return false;
  int32_t p = 0;
  for (size_t i = dash + 1; i < name.size(); ++i) {
    if (name[i] < '0' || name[i] > '9' || p > 100000000) return false;
    p = p * 10 + (name[i] - '0');
  }
  tp.topic = name.substr(0, dash);
  tp.partition = p;
  return true;
}

}  // namespace

Result<void> LogManager::valid_topic_name(const std::string& name) {
  auto bad = [](const char* m) -> Result<void> { return unexpected(Error::of(LogErrc::kInvalidTopic, m)); };
  if (name.empty()) return bad("Topic name is illegal, it can't be empty");
  if (name == "." || name == "..") return bad("Topic name cannot be \".\" or \"..\"");
  if (name.size() > 249) return bad("Topic name is illegal, it can't be longer than 249 characters");
  for (char c : name) {
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' ||
          c == '-')) {
      return bad("Topic name contains a character other than ASCII alphanumerics, '.', '_' and '-'");
    }
  }
  return {};
}

namespace {
std::atomic<uint64_t> next_instance_id{1};

// Runs f(i) for every i in [0, n) on up to 16 threads (the caller's among
// them): opening and closing logs wait on the disk far more than on a CPU.
// The first exception stops the others and is rethrown.
template <class F>
void parallel_for(size_t n, F f) {
  constexpr size_t kThreads = 16;
  std::atomic<size_t> next{0};
  std::mutex error_mu;
  std::exception_ptr error;
  auto work = [&] {
    for (size_t i = next++; i < n; i = next++) {
      try {
        f(i);
      } catch (...) {
        std::lock_guard lk(error_mu);
        if (!error) error = std::current_exception();
        next = n;
      }
    }
  };
  std::vector<std::thread> threads;
  for (size_t t = 0; t + 1 < std::min(kThreads, n / 64 + 1); ++t) threads.emplace_back(work);
  work();
  for (auto& t : threads) t.join();
  if (error) std::rethrow_exception(error);
}

// What Kafka's LogConfig.validate knows of the broker: the system switch,
// the broker's defaults of every topic key, and for an alter the topic's
// overrides before it.
TopicConfigContext topic_context(const LogManagerConfig& config, const LogConfig& defaults,
                                 const std::map<std::string, std::string>& existing) {
  TopicConfigContext ctx;
  ctx.remote_storage_system_enabled = config.remote_storage_system_enabled;
  ctx.existing = existing;
  if (!ctx.remote_storage_system_enabled && !existing.count("remote.storage.enable")) return ctx;
  ctx.broker_defaults = defaults.effective_values();
  for (const auto& [key, value] : config.topic_key_defaults) ctx.broker_defaults[key] = value;
  return ctx;
}
}  // namespace

LogManager::LogManager(LogManagerConfig config)
    : config_(std::move(config)),
      fd_cache_(std::make_shared<FdCache>(config_.fd_cache_capacity)),
      instance_id_(next_instance_id.fetch_add(1, std::memory_order_relaxed)) {
  if (config_.log_dirs.empty()) throw std::invalid_argument("log.dirs is empty");
  init_dirs();
  ReplicaDirMover::recover(config_.log_dirs);  // before any log is opened
  load_logs();
  mover_ = std::make_unique<ReplicaDirMover>(*this);
  scheduler_.add_task("retention", config_.retention_check_interval_ms, [this] { run_retention(wall_clock_ms()); });
  scheduler_.add_task("flush", config_.flush_scheduler_interval_ms, [this] { run_flushes(wall_clock_ms()); });
  scheduler_.add_task("recovery-point-checkpoint", config_.flush_offset_checkpoint_interval_ms,
                      [this] { checkpoint_recovery_points(); });
  scheduler_.add_task("log-start-offset-checkpoint", config_.flush_start_offset_checkpoint_interval_ms,
                      [this] { checkpoint_log_start_offsets(); });
  if (config_.cleaner_enable) {
    cleaner_ = std::make_unique<LogCleanerManager>(config_.cleaner, config_.log_dirs, [this] {
      std::vector<CleanableLog> out;
      // Only compacted logs: at 100,000 partitions a list of all of them,
      // made at each pass, was 25 MB and most of a core's pass time.
      for (auto& [tp, e] : all_logs())
        if (e.log->config()->compact) out.push_back({tp, e.log, config_.log_dirs[e.dir_index]});
      return out;
    });
  }
}

LogManager::~LogManager() {
  try {
    shutdown();
  } catch (const std::exception& e) {
    storage_log().error("log manager shutdown failed: {}", e.what());
  }
}

void LogManager::init_dirs() {
  std::optional<std::string> cluster = config_.cluster_id.empty() ? std::nullopt : std::optional(config_.cluster_id);
  std::vector<std::optional<MetaProperties>> metas;
  for (const auto& d : config_.log_dirs) {
    // Durably: meta.properties and everything else live in it (issue 57).
    if (int rc = create_directories_durably(d))
      throw std::system_error(rc, std::generic_category(), "create log dir " + d.string());
    auto m = read_meta_properties(d);
    if (m) {
      if (m->node_id != config_.node_id) {
        throw std::runtime_error(fmt::format("Stored node id {} in {} doesn't match configured node.id {}", m->node_id,
                                             d.string(), config_.node_id));
      }
      if (cluster && *cluster != m->cluster_id) {
        throw std::runtime_error(
            fmt::format("Stored cluster.id {} in {} doesn't match {}", m->cluster_id, d.string(), *cluster));
      }
      cluster = m->cluster_id;
    }
    metas.push_back(m);
  }
  cluster_id_ = cluster ? *cluster : Uuid::random().to_string();
  for (size_t i = 0; i < config_.log_dirs.size(); ++i) {
    const auto& d = config_.log_dirs[i];
    if (!metas[i]) {
      MetaProperties m{1, cluster_id_, config_.node_id, Uuid::random().to_string()};
      auto written = write_meta_properties(d, m);
      const int rc = written ? 0 : written.error().sys_errno;
      if (rc == ENOSPC || rc == EDQUOT) {
        storage_log().error(
            "log dir {}: disk full (no space left on device): meta.properties not written yet; retried "
            "with each checkpoint",
            d.string());
        pending_meta_[i] = m;
      } else if (!written) {
        throw_io(written.error(), "write meta.properties in " + d.string());
      }
    }
    clean_.push_back(fs::exists(d / kCleanShutdownFile));
    clean_states_.push_back(clean_.back() ? read_clean_log_states(d) : CleanLogStates{});
    same_boot_.push_back(marked_on_boot(d, current_boot_id()));
    recovery_points_.push_back(read_offset_checkpoint(d / kRecoveryPointCheckpointFile));
    start_offsets_.push_back(read_offset_checkpoint(d / kLogStartOffsetCheckpointFile));
  }
  partitions_per_dir_.assign(config_.log_dirs.size(), 0);
  store_ = std::make_unique<TopicStore>(config_.log_dirs.front() / kTopicStoreFile);
}

std::shared_ptr<Log> LogManager::open_log(size_t dir_index, const TopicPartition& tp,
                                          std::shared_ptr<const LogConfig> cfg, const Uuid& topic_id, bool fresh,
                                          bool listed) {
  LogLoadParams p;
  p.topic = tp.topic;
  p.partition = tp.partition;
  p.clean_shutdown = dir_index < clean_.size() && clean_[dir_index];
  p.same_boot = dir_index < same_boot_.size() && same_boot_[dir_index];
  p.fd_cache = fd_cache_;
  if (dir_index < recovery_points_.size()) {
    auto it = recovery_points_[dir_index].find(tp);
    if (it != recovery_points_[dir_index].end()) p.recovery_point = it->second;
    auto it2 = start_offsets_[dir_index].find(tp);
    if (it2 != start_offsets_[dir_index].end()) p.log_start_offset = it2->second;
  }
  fs::path dir = config_.log_dirs[dir_index] / tp.dir_name();
  if (fresh) {
    p = LogLoadParams{tp.topic, tp.partition, false, 0, 0, fd_cache_};
    fs::remove_all(dir);  // a new partition starts empty, whatever was left there
  }
  fresh = fresh || (!listed && !fs::exists(dir));
  const CleanLogState* clean = nullptr;
  if (!fresh && dir_index < clean_states_.size()) {
    auto it = clean_states_[dir_index].find(tp.dir_name());
    if (it != clean_states_[dir_index].end()) clean = &it->second;
  }
  auto log = Log::open(dir, p, std::move(cfg), clean);
  if (fresh || !log->partition_metadata_found()) {
    write_partition_metadata(dir, topic_id);
    fsync_dir(config_.log_dirs[dir_index]);
  }
  return log;
}

// Each stored topic's config over the broker defaults; keys no longer
// valid are dropped (logged).
void LogManager::load_topic_configs() {
  for (auto& [name, t] : topics_) {
    std::map<std::string, std::string> dropped;
    auto c = LogConfig::with_stored_overrides(config_.defaults, t.overrides, &dropped,
                                              config_.remote_storage_system_enabled);
    for (const auto& [key, why] : dropped)
      storage_log().warn("topic {}: ignoring stored config {}={} ({})", name, key, t.overrides[key], why);
    // Kafka logs this and serves the topic without remote storage
    // (UnifiedLog.remoteLogEnabled needs the system); the key stays stored.
    if (auto r = validate_stored_topic_remote_storage(c.overrides, config_.remote_storage_system_enabled); !r)
      storage_log().error(
          "topic {}: {} (remote.storage.enable=true is stored but remote.log.storage.system.enable=false: the topic "
          "is served from local disk only; its remote data is neither read nor deleted)",
          name, r.error().message);
    t.overrides = c.overrides;  // what is described and persisted from now on
    topic_configs_[name] = std::make_shared<const LogConfig>(std::move(c));
  }
}

void LogManager::load_logs() {
  const bool have_store = store_->exists();
  set_topics(store_->load());
  load_topic_configs();
  std::map<TopicPartition, size_t> found;  // partition -> dir index
  for (size_t di = 0; di < config_.log_dirs.size(); ++di) {
    for_each_dir_entry(config_.log_dirs[di], [&](std::string_view sv, bool is_dir) {
      if (!is_dir) return;
      const std::string name(sv);
      TopicPartition tp;
      if (name.ends_with("-delete")) {
        fs::remove_all(config_.log_dirs[di] / name);  // a deletion interrupted by a crash
        return;
      }
      if (!parse_partition_dir(name, tp)) return;
      auto t = topics_.find(tp.topic);
      if (t == topics_.end() || tp.partition >= t->second.partitions) {
        if (have_store) {
          const fs::path path = config_.log_dirs[di] / name;
          storage_log().warn("removing {}: not a partition of a known topic (interrupted deletion)", path.string());
          fs::remove_all(path);
        }
        return;
      }
      if (!found.emplace(tp, di).second) throw std::runtime_error("partition " + name + " found in two log dirs");
    });
  }
  // Opened in parallel (each reads a little of its files); the maps are
  // filled afterwards, on this thread.
  std::vector<std::pair<TopicPartition, size_t>> todo(found.begin(), found.end());
  std::vector<std::shared_ptr<Log>> opened(todo.size());
  parallel_for(todo.size(), [&](size_t i) {
    const auto& [tp, di] = todo[i];
    opened[i] = open_log(di, tp, topic_configs_.at(tp.topic), topics_.at(tp.topic).topic_id, false, true);
  });
  for (size_t i = 0; i < todo.size(); ++i) {
    logs_[todo[i].first] = {std::move(opened[i]), todo[i].second};
    ++partitions_per_dir_[todo[i].second];
  }
  for (const auto& [name, t] : topics_) {  // partitions whose dir went missing
    for (int32_t p = 0; p < t.partitions; ++p) {
      TopicPartition tp{name, p};
      if (logs_.count(tp)) continue;
      size_t di = pick_dir();
      logs_[tp] = {open_log(di, tp, topic_configs_[name], t.topic_id), di};
      ++partitions_per_dir_[di];
    }
  }
  // The markers only describe the stop before this start; the boot marker
  // says from now on that this dir was loaded on this boot.
  const std::string boot = current_boot_id();
  for (const auto& d : config_.log_dirs) {
    // The record of the clean close goes with its marker: it describes the
    // files only until the first append.
    const bool had_states = fs::remove(d / kCleanLogStateFile);
    if (fs::remove(d / kCleanShutdownFile) || had_states) fsync_dir(d);
    mark_boot(d, boot);
  }
  // What was read for the load only: at 100,000 partitions the checkpoints'
  // maps and the clean-close records are 28 MB. malloc_trim gives the
  // pages the load freed back to the system (glibc keeps them otherwise).
  clean_states_ = {};
  recovery_points_ = {};
  start_offsets_ = {};
#ifdef __GLIBC__
  malloc_trim(0);
#endif
}

namespace {

size_t fewest(const std::vector<size_t>& counts) {
  size_t best = 0;
  for (size_t i = 1; i < counts.size(); ++i) {
    if (counts[i] < counts[best]) best = i;
  }
  return best;
}

}  // namespace

size_t LogManager::pick_dir() const { return fewest(partitions_per_dir_); }

// The new logs were never visible: dropping them closes their files first
// (after EMFILE, removing a directory needs a descriptor), then their
// directories go, with `half_made` (one whose opening failed).
void LogManager::discard_new_partitions(std::vector<std::pair<TopicPartition, LogEntry>>& created,
                                        const fs::path& half_made) {
  std::vector<fs::path> dirs;
  dirs.reserve(created.size() + 1);
  for (auto& [tp, le] : created) dirs.push_back(config_.log_dirs[le.dir_index] / tp.dir_name());
  if (!half_made.empty()) dirs.push_back(half_made);
  created.clear();
  for (const auto& d : dirs) {
    std::error_code ec;
    fs::remove_all(d, ec);
    if (ec) storage_log().error("removing {} after a failed creation: {}", d.string(), ec.message());
  }
#ifdef __GLIBC__
  // The logs' memory went back to this handler thread's malloc arena, which
  // glibc keeps; a refused creation should leave the broker as it found it.
  malloc_trim(0);
#endif
}

std::vector<std::pair<TopicPartition, LogManager::LogEntry>> LogManager::open_new_partitions(
    const std::string& topic, int32_t from, int32_t to, const std::shared_ptr<const LogConfig>& cfg,
    const Uuid& topic_id) {
  std::vector<size_t> counts;
  {
    std::shared_lock lk(mu_);
    counts = partitions_per_dir_;
  }
  std::vector<std::pair<TopicPartition, LogEntry>> created;
  created.reserve(static_cast<size_t>(to - from));
  fs::path opening;  // the partition being opened: a failure may leave it half made
  try {
    for (int32_t p = from; p < to; ++p) {
      size_t di = fewest(counts);
      ++counts[di];
      TopicPartition tp{topic, p};
      opening = config_.log_dirs[di] / tp.dir_name();
      created.push_back({tp, {open_log(di, tp, cfg, topic_id, /*fresh=*/true), di}});
    }
  } catch (...) {
    discard_new_partitions(created, opening);
    throw;
  }
  return created;
}

void LogManager::start() {
  scheduler_.start();
  if (cleaner_) cleaner_->start();
}

void LogManager::stop() {
  if (cleaner_) cleaner_->stop();
  scheduler_.stop();
}

void LogManager::shutdown() {
  if (mover_) mover_->stop();  // before admin_mu_: a move's last steps take it
  std::lock_guard admin(admin_mu_);
  if (shut_down_) return;
  shut_down_ = true;
  if (cleaner_) cleaner_->stop();
  scheduler_.stop();
  const auto logs = all_logs();
  close_logs(logs);
  checkpoint_recovery_points();
  checkpoint_log_start_offsets();
  write_clean_states(logs);  // before the markers: only a marker makes them count
  for (const auto& d : config_.log_dirs) {
    write_file_durably(d / kCleanShutdownFile, "{\"version\":0,\"brokerEpoch\":-1}");
  }
}

void LogManager::write_clean_states(const std::vector<std::pair<TopicPartition, LogEntry>>& logs) {
  std::vector<CleanLogStates> per_dir(config_.log_dirs.size());
  for (const auto& [tp, e] : logs) {
    if (auto s = e.log->clean_state()) per_dir[e.dir_index].emplace(tp.dir_name(), *s);
  }
  for (size_t di = 0; di < per_dir.size(); ++di) {
    if (auto r = write_clean_log_states(config_.log_dirs[di], per_dir[di]); !r)
      storage_log().warn("log dir {}: {} not written ({}): the next start opens every log's last segment",
                         config_.log_dirs[di].string(), kCleanLogStateFile, describe(r.error()));
  }
}

// Each close is a few fsyncs (log, indexes, producer snapshot): bound by the
// disk's sync latency, not by CPU, so several threads close in parallel
// (Kafka: num.recovery.threads.per.data.dir). 100,000 partitions at ~4 ms
// each would take minutes one at a time.
void LogManager::close_logs(const std::vector<std::pair<TopicPartition, LogEntry>>& logs) {
  parallel_for(logs.size(), [&](size_t i) { logs[i].second.log->close(); });
}

std::vector<std::pair<TopicPartition, LogManager::LogEntry>> LogManager::all_logs() const {
  std::shared_lock lk(mu_);
  return {logs_.begin(), logs_.end()};
}

Result<void> LogManager::persist_topics(const std::map<std::string, TopicInfo>& topics) { return store_->save(topics); }

Result<void> LogManager::check_partition_limit(int64_t adding) const {
  int64_t now = 0;
  {
    std::shared_lock lk(mu_);
    now = static_cast<int64_t>(logs_.size());
  }
  if (now + adding <= config_.max_partitions) return {};
  return unexpected(
      Error::of(LogErrc::kPolicyViolation,
                fmt::format("Adding {} partition(s) to the {} this broker holds would exceed its limit of {} "
                            "partitions (skiff.max.partitions).",
                            adding, now, config_.max_partitions)));
}

Result<CreatedTopic> LogManager::create_topic(const std::string& name, int32_t partitions,
                                              const std::map<std::string, std::string>& overrides, bool validate_only) {
  std::lock_guard admin(admin_mu_);
  if (auto valid = valid_topic_name(name); !valid) return unexpected(std::move(valid.error()));
  if (partitions <= 0)
    return unexpected(Error::of(LogErrc::kInvalidPartitions, "Number of partitions must be larger than 0."));
  auto c = new_topic_config(overrides);
  if (!c) return unexpected(std::move(c.error()));
  auto cfg = std::make_shared<const LogConfig>(std::move(*c));
  std::map<std::string, TopicInfo> next;
  {
    std::shared_lock lk(mu_);
    if (topics_.count(name))
      return unexpected(Error::of(LogErrc::kTopicAlreadyExists, fmt::format("Topic '{}' already exists.", name)));
    next = topics_;
  }
  if (auto room = check_partition_limit(partitions); !room) return unexpected(std::move(room.error()));
  TopicInfo t{name, Uuid::random(), partitions, overrides};
  CreatedTopic made{t.topic_id, cfg};
  if (validate_only) return made;
  next[name] = t;
  std::vector<std::pair<TopicPartition, LogEntry>> created;
  try {
    created = open_new_partitions(name, 0, partitions, cfg, t.topic_id);
  } catch (const std::exception& e) {
    return unexpected(Error::of(LogErrc::kStorageError, e.what()));
  }
  if (auto r = persist_topics(next); !r) {
    discard_new_partitions(created);
    Error e = std::move(r.error());
    e.code = LogErrc::kStorageError;
    e.message = "persisting topic metadata: " + describe(e);
    return unexpected(std::move(e));
  }
  std::unique_lock lk(mu_);
  generation_.fetch_add(1, std::memory_order_release);
  set_topics(std::move(next));
  topic_configs_[name] = cfg;
  for (auto& [tp, le] : created) {
    ++partitions_per_dir_[le.dir_index];
    logs_[tp] = le;
  }
  return made;
}

Result<void> LogManager::create_partitions(const std::string& name, int32_t total, bool validate_only) {
  std::lock_guard admin(admin_mu_);
  std::map<std::string, TopicInfo> next;
  std::shared_ptr<const LogConfig> cfg;
  {
    std::shared_lock lk(mu_);
    auto it = topics_.find(name);
    if (it == topics_.end()) return unexpected(Error::of(LogErrc::kUnknownTopicOrPartition));
    if (total <= it->second.partitions) {
      return unexpected(
          Error::of(LogErrc::kInvalidPartitions,
                    fmt::format("Topic currently has {} partitions, which is higher than the requested {}.",
                                it->second.partitions, total)));
    }
    next = topics_;
    cfg = topic_configs_.at(name);
  }
  TopicInfo& t = next[name];
  if (auto room = check_partition_limit(total - t.partitions); !room) return room;
  if (validate_only) return {};
  std::vector<std::pair<TopicPartition, LogEntry>> created;
  try {
    created = open_new_partitions(name, t.partitions, total, cfg, t.topic_id);
  } catch (const std::exception& e) {
    return unexpected(Error::of(LogErrc::kStorageError, e.what()));
  }
  t.partitions = total;
  if (auto r = persist_topics(next); !r) {
    discard_new_partitions(created);
    return r;
  }
  std::unique_lock lk(mu_);
  generation_.fetch_add(1, std::memory_order_release);
  set_topics(std::move(next));
  for (auto& [tp, le] : created) {
    ++partitions_per_dir_[le.dir_index];
    logs_[tp] = le;
  }
  return {};
}

Result<void> LogManager::delete_topic(const std::string& name) {
  std::lock_guard admin(admin_mu_);
  std::map<std::string, TopicInfo> next;
  {
    std::shared_lock lk(mu_);
    if (!topics_.count(name)) return unexpected(Error::of(LogErrc::kUnknownTopicOrPartition));
    next = topics_;
  }
  next.erase(name);
  // Metadata first: a crash after this leaves orphan dirs, removed at start.
  if (auto r = persist_topics(next); !r) return r;  // an I/O Error (kStorageError)
  std::vector<LogEntry> victims;
  std::vector<TopicPartition> victim_tps;
  {
    std::unique_lock lk(mu_);
    generation_.fetch_add(1, std::memory_order_release);
    for (auto it = logs_.begin(); it != logs_.end();) {
      if (it->first.topic == name) {
        victims.push_back(it->second);
        victim_tps.push_back(it->first);
        --partitions_per_dir_[it->second.dir_index];
        it = logs_.erase(it);
      } else {
        ++it;
      }
    }
    set_topics(std::move(next));
    topic_configs_.erase(name);
  }
  if (cleaner_)
    for (const auto& tp : victim_tps) cleaner_->abort_and_pause(tp);  // no cleaning mid-delete
  for (auto& v : victims) v.log->delete_all();
  if (cleaner_)
    for (const auto& tp : victim_tps) cleaner_->resume(tp);
  for (const auto& d : config_.log_dirs) fsync_dir(d);
  return {};
}

Result<LogConfig> LogManager::new_topic_config(const std::map<std::string, std::string>& overrides) const {
  const LogConfig d = defaults();
  return LogConfig::with_overrides(d, overrides, topic_context(config_, d, {}));
}

Result<void> LogManager::alter_topic_config(const std::string& name,
                                            const std::map<std::string, std::string>& overrides, bool validate_only) {
  std::lock_guard admin(admin_mu_);
  std::map<std::string, TopicInfo> next;
  {
    std::shared_lock lk(mu_);
    if (!topics_.count(name)) return unexpected(Error::of(LogErrc::kUnknownTopicOrPartition));
    next = topics_;
  }
  auto c = LogConfig::with_overrides(defaults(), overrides, topic_context(config_, defaults(), next[name].overrides));
  if (!c) return unexpected(std::move(c.error()));
  if (validate_only) return {};
  auto cfg = std::make_shared<const LogConfig>(std::move(*c));
  next[name].overrides = overrides;
  if (auto r = persist_topics(next); !r) return r;  // an I/O Error (kStorageError)
  std::vector<std::shared_ptr<Log>> logs;
  {
    std::unique_lock lk(mu_);
    generation_.fetch_add(1, std::memory_order_release);
    set_topics(std::move(next));
    topic_configs_[name] = cfg;
    for (auto& [tp, e] : logs_)
      if (tp.topic == name) logs.push_back(e.log);
  }
  for (auto& l : logs) l->set_config(cfg);
  return {};
}

Result<void> LogManager::set_defaults(const LogConfig& defaults, bool validate_only) {
  std::lock_guard admin(admin_mu_);
  std::map<std::string, TopicInfo> topics;
  {
    std::shared_lock lk(mu_);
    topics = topics_;
  }
  std::map<std::string, std::shared_ptr<const LogConfig>> configs;
  for (const auto& [name, info] : topics) {
    // Kafka revalidates nothing of remote storage on a broker default
    // change: a stored remote.storage.enable=true with the system off
    // (logged at load) does not block it.
    auto checked = info.overrides;
    if (!config_.remote_storage_system_enabled) checked.erase("remote.storage.enable");
    auto c = LogConfig::with_overrides(defaults, checked, topic_context(config_, defaults, checked));
    if (c) c->overrides = info.overrides;  // with the system off, remote storage stays off in effect
    if (!c) {
      c.error().message = fmt::format("topic {}: {}", name, c.error().message);
      return unexpected(std::move(c.error()));
    }
    configs[name] = std::make_shared<const LogConfig>(std::move(*c));
  }
  if (validate_only) return {};
  std::vector<std::pair<std::shared_ptr<Log>, std::shared_ptr<const LogConfig>>> logs;
  {
    std::unique_lock lk(mu_);
    generation_.fetch_add(1, std::memory_order_release);
    config_.defaults = defaults;
    for (auto& [name, cfg] : configs) topic_configs_[name] = cfg;
    for (auto& [tp, e] : logs_)
      if (auto it = configs.find(tp.topic); it != configs.end()) logs.emplace_back(e.log, it->second);
  }
  for (auto& [l, cfg] : logs) l->set_config(cfg);
  return {};
}

// One topic as a thread last saw it: its info (none: no such topic) and its
// partitions' logs, held weakly so a deleted partition is not kept open.
struct LogManager::CachedTopic {
  std::optional<TopicInfo> info;
  std::vector<std::weak_ptr<Log>> logs;
};

const LogManager::CachedTopic& LogManager::cached_topic(const std::string& name) const {
  struct ThreadCache {
    uint64_t owner = 0;  // LogManager instance id (never reused)
    uint64_t generation = 0;
    std::unordered_map<std::string, CachedTopic> topics;  // nodes stay put: references survive inserts
  };
  thread_local ThreadCache cache;
  const uint64_t gen = generation_.load(std::memory_order_acquire);
  if (cache.owner != instance_id_ || cache.generation != gen) {
    cache.topics.clear();
    cache.owner = instance_id_;
    cache.generation = gen;  // read before loading: a change meanwhile only causes one more reload
  }
  auto it = cache.topics.find(name);
  if (it == cache.topics.end()) {
    CachedTopic entry;
    {
      std::shared_lock lk(mu_);
      if (auto t = topics_.find(name); t != topics_.end()) {
        entry.info = t->second;
        entry.logs.resize(static_cast<size_t>(std::max(0, t->second.partitions)));
        // One walk over the topic's run of the map (ordered by topic, then
        // partition), not a lookup per partition: a thread's first request
        // to a topic of 1,000 partitions took a millisecond.
        for (auto l = logs_.lower_bound(TopicPartition{name, 0}); l != logs_.end() && l->first.topic == name; ++l) {
          if (l->first.partition >= 0 && l->first.partition < t->second.partitions)
            entry.logs[size_t(l->first.partition)] = l->second.log;
        }
      }
    }
    it = cache.topics.emplace(name, std::move(entry)).first;
  }
  return it->second;
}

std::shared_ptr<Log> LogManager::get_log(const std::string& topic, int32_t partition) const {
  const auto& t = cached_topic(topic);
  if (partition < 0 || static_cast<size_t>(partition) >= t.logs.size()) return nullptr;
  return t.logs[static_cast<size_t>(partition)].lock();
}

std::optional<TopicInfo> LogManager::topic(const std::string& name) const { return cached_topic(name).info; }

std::optional<TopicInfo> LogManager::topic_by_id(const Uuid& id) const {
  std::shared_lock lk(mu_);
  auto named = names_by_id_.find(id);
  if (named == names_by_id_.end()) return std::nullopt;
  return topics_.at(named->second);
}

void LogManager::set_topics(std::map<std::string, TopicInfo> topics) {
  topics_ = std::move(topics);
  names_by_id_.clear();
  for (const auto& [name, t] : topics_)
    if (!t.topic_id.is_zero()) names_by_id_.emplace(t.topic_id, name);
}

std::vector<TopicInfo> LogManager::list_topics() const {
  std::shared_lock lk(mu_);
  std::vector<TopicInfo> v;
  for (const auto& [n, t] : topics_) v.push_back(t);
  return v;
}

std::shared_ptr<const LogConfig> LogManager::topic_config(const std::string& name) const {
  std::shared_lock lk(mu_);
  auto it = topic_configs_.find(name);
  return it == topic_configs_.end() ? nullptr : it->second;
}

int LogManager::run_retention(int64_t now_ms) {
  int n = 0;
  for (auto& [tp, e] : all_logs()) n += e.log->delete_old_segments(now_ms);
  return n;
}

// Every second: only the logs due are copied out (at 100,000 partitions,
// copying all of them with their names took a quarter of a core), and they
// are flushed outside the lock.
void LogManager::run_flushes(int64_t now_ms) {
  std::vector<std::shared_ptr<Log>> due;
  {
    std::shared_lock lk(mu_);
    for (const auto& [tp, e] : logs_)
      if (e.log->flush_due(now_ms)) due.push_back(e.log);
  }
  for (const auto& log : due) log->maybe_flush(now_ms);
}

void LogManager::write_pending_meta() {
  for (auto it = pending_meta_.begin(); it != pending_meta_.end();) {
    if (!write_meta_properties(config_.log_dirs[it->first], it->second)) return;
    storage_log().info("log dir {}: meta.properties written", config_.log_dirs[it->first].string());
    it = pending_meta_.erase(it);
  }
}

void LogManager::checkpoint_recovery_points() {
  std::lock_guard ck(checkpoint_mu_);
  write_pending_meta();
  std::vector<std::map<TopicPartition, int64_t>> per_dir(config_.log_dirs.size());
  for (auto& [tp, e] : all_logs()) per_dir[e.dir_index][tp] = e.log->recovery_point().value;
  for (size_t i = 0; i < per_dir.size(); ++i) {
    if (auto r = write_offset_checkpoint(config_.log_dirs[i] / kRecoveryPointCheckpointFile, per_dir[i]); !r) {
      storage_log().error("writing recovery point checkpoint in {}: {}", config_.log_dirs[i].string(),
                          describe(r.error()));
    }
  }
}

void LogManager::checkpoint_log_start_offsets() {
  std::lock_guard ck(checkpoint_mu_);
  std::vector<std::map<TopicPartition, int64_t>> per_dir(config_.log_dirs.size());
  for (auto& [tp, e] : all_logs()) per_dir[e.dir_index][tp] = e.log->log_start_offset().value;
  for (size_t i = 0; i < per_dir.size(); ++i) {
    if (auto r = write_offset_checkpoint(config_.log_dirs[i] / kLogStartOffsetCheckpointFile, per_dir[i]); !r) {
      storage_log().error("writing log start offset checkpoint in {}: {}", config_.log_dirs[i].string(),
                          describe(r.error()));
    }
  }
}

}  // namespace skiff::storage
