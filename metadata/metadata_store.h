// MetadataStore: the one durable store of Skiff's small cluster state (ACLs,
// SCRAM credentials, client quotas, client-metrics subscriptions, group and
// dynamic broker configs, producer-id blocks, feature levels), as Kafka keeps it in its
// metadata log. One directory in the first log dir, one file per namespace
// (metadata/namespaces.h lists them, with the layout of the directory). An
// owner keeps its state in memory and its record encoding; it hands the
// store the whole set of records on every change and reads them back at
// startup. The store frames, checks, writes and replaces the files.
//
// File layout (integers big-endian; fields as common/file_fields.h writes them):
//   magic    8 bytes  "SKIFFMDS"
//   name     int32 length, then the namespace's name (ASCII)
//   version  int16    the owner's record version (the version rule: namespaces.h)
//   count    int32    number of records
//   count times:
//     record int32 length, then the owner's bytes
//   crc      uint32   CRC-32C of every byte before it
//
// Crash safety: a write goes to "<name>.tmp" (created 0600 for a secret
// namespace, else 0644), which is fsynced, renamed over "<name>", and the
// directory fsynced; the change is acknowledged only after that, so after a
// crash the file holds the records before a write or after it, never a mix.
// A leftover temp file (a write cut by kill -9) is removed when the store
// opens.
//
// Errors: one shape, Error, whose message names the file ("the metadata file
// <path> is corrupt: CRC mismatch"). At startup an owner throws it as
// Failure; main logs the message and exits non-zero, so the broker never
// serves a partial set. A failed write is logged once here (storage logger)
// and changes nothing on disk.
//
// Threads: open() at startup. ns() is thread-safe. A Namespace's write()
// calls are serialised by the namespace's own mutex (an owner still orders
// its own publish after the write); different namespaces write independently.
// read() may run beside a write: it sees the file before or after it.
#pragma once

#include <cerrno>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "common/expected.h"
#include "metadata/namespaces.h"

namespace skiff::metadata {

struct Error {
  std::string message;  // names the file and says what is wrong
  int sys_errno = 0;    // an I/O failure's errno, else 0
};

template <class T>
using Result = Expected<T, Error>;
using skiff::unexpected;

// An Error thrown at startup (the broker refuses to start with its message).
class Failure : public std::runtime_error {
 public:
  explicit Failure(const Error& e) : std::runtime_error(e.message) {}
};

// The value, or Failure.
template <class T>
T value_or_throw(Result<T> r) {
  if (!r) throw Failure(r.error());
  return std::move(*r);
}

// What a namespace's file holds.
struct Contents {
  bool found = false;  // false: no file yet (records empty, version the current one)
  int16_t version = 0;
  std::vector<std::string> records;
};

// The steps of a write, in order (tests observe them).
enum class WriteStep { kTempSynced, kRenamed, kDirSynced };

class Namespace {
 public:
  Namespace(const Namespace&) = delete;
  Namespace& operator=(const Namespace&) = delete;

  const NamespaceDef& def() const { return def_; }
  const std::filesystem::path& file() const { return file_; }

  // The file's records; Error when it cannot be read, is corrupt, or has a
  // version newer than def().version.
  Result<Contents> read() const;
  // Replaces the file with `records` at def().version, durably.
  Result<void> write(const std::vector<std::string>& records);
  // An owner's finding that a record does not decode, as the store's error.
  Error corrupt(std::string_view why) const;
  // An owner's startup load: read(), then `decode(records)`'s result. Throws
  // Failure with the store's error, a std::runtime_error from `decode` being
  // the file's corruption (corrupt()).
  template <class Decode>
  auto load(Decode&& decode) const {
    auto contents = read();
    if (!contents) throw Failure(contents.error());
    try {
      return decode(contents->records);
    } catch (const std::runtime_error& e) {
      throw Failure(corrupt(e.what()));
    }
  }

  // Called after each step of every write (tests; before writes start).
  void set_step_hook(std::function<void(WriteStep)> hook) { hook_ = std::move(hook); }

 private:
  friend class MetadataStore;
  Namespace(const NamespaceDef& def, const std::filesystem::path& dir);
  Result<void> write_file(const std::string& bytes);
  void step(WriteStep s) const;

  const NamespaceDef def_;
  const std::filesystem::path dir_;
  const std::filesystem::path file_;
  std::mutex write_mu_;  // one write at a time
  std::function<void(WriteStep)> hook_;
};

class MetadataStore {
 public:
  // Opens <log_dir>/skiff-metadata, creating it (and fsyncing log_dir) when
  // missing, and removes leftover temp files.
  static Result<std::unique_ptr<MetadataStore>> open(const std::filesystem::path& log_dir);

  const std::filesystem::path& dir() const { return dir_; }
  // The namespace's handle; the same one for every call with that name.
  Namespace& ns(const NamespaceDef& def);

  // A file's bytes, and back. decode checks magic, CRC, the name against
  // `def` and the record framing, not the version (read() applies the
  // version rule); its errors say what is wrong without the path.
  static std::string encode(const NamespaceDef& def, const std::vector<std::string>& records);
  static Expected<Contents, std::string> decode(const NamespaceDef& def, std::string_view bytes);

 private:
  explicit MetadataStore(std::filesystem::path dir) : dir_(std::move(dir)) {}

  const std::filesystem::path dir_;
  std::mutex mu_;  // guards namespaces_
  std::map<std::string, std::unique_ptr<Namespace>, std::less<>> namespaces_;
};

// The errno of a failed Result (EIO when it carries none), for owners whose
// callers speak errno.
inline int error_number(const Error& e) { return e.sys_errno != 0 ? e.sys_errno : EIO; }

}  // namespace skiff::metadata
