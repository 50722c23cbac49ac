// The one value-or-error type of log/: Result<T> is a T or an Error. Every
// fallible storage operation that is not startup load or recovery (which
// throw std::system_error, see the design notes) reports through it, the
// public operations of Log and LogManager included. Error says what went
// wrong in storage terms: an outcome (LogErrc, which api/ maps to a Kafka
// error code), the errno of an I/O failure, a message for the client or the
// log line, and for a refused append the records that made it fail.
// Header-only; thread rules of the value.
#pragma once

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include "common/expected.h"
#include "log/types.h"

namespace skiff::storage {

// One refused record of a batch (Kafka's ProduceResponse.RecordError):
// its index inside the batch that was sent, and why.
struct RecordError {
  int32_t batch_index = 0;
  std::string message;
  bool operator==(const RecordError&) const = default;
};

struct Error {
  LogErrc code = LogErrc::kStorageError;
  int sys_errno = 0;    // an I/O failure's errno, else 0
  std::string message;  // why, in words (INVALID_CONFIG's reason, the client's error message); may be empty
  // kInvalidRecord of an append naming records (Kafka's LogValidator: a
  // keyless record on a compacted topic; Produce v8+ returns them as its
  // RecordErrors); empty for every other error.
  std::vector<RecordError> record_errors;

  static Error of(LogErrc c, std::string why = {}) {
    Error e;
    e.code = c;
    e.message = std::move(why);
    return e;
  }
  static Error io(int errno_value) {
    Error e;
    e.sys_errno = errno_value;
    return e;
  }
  static Error invalid_config(std::string why) { return of(LogErrc::kInvalidConfig, std::move(why)); }
};

template <class T>
using Result = Expected<T, Error>;
using skiff::unexpected;

// A Result's outcome: kNone on success, else its error's.
template <class T>
LogErrc outcome(const Result<T>& r) {
  return r ? LogErrc::kNone : r.error().code;
}  // `return unexpected(Error::io(errno));`

// The errno a POSIX call just set, as an I/O Error (EIO if it left none).
inline Error errno_error() { return Error::io(errno != 0 ? errno : EIO); }

// A step of the errno-valued POSIX layer (file_util.h: 0 = ok) as a Result.
inline Result<void> io_status(int rc) {
  if (rc == 0) return {};
  return unexpected(Error::io(rc));
}

// For a log line: the errno's strerror text, else the outcome's name.
inline std::string describe(const Error& e) {
  if (e.sys_errno != 0) return std::strerror(e.sys_errno);
  return e.message.empty() ? std::string(to_string(e.code)) : e.message;
}

// Startup load and recovery report by exception (the design's one exception
// to Result): an Error as the std::system_error they throw.
[[noreturn]] inline void throw_io(const Error& e, const std::string& what) {
  throw std::system_error(e.sys_errno != 0 ? e.sys_errno : EIO, std::generic_category(), what);
}

}  // namespace skiff::storage
