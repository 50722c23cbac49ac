// The one value-or-error type of log/: Result<T> is a T or an Error. Every
// fallible storage operation that is not startup load or recovery (which
// throw std::system_error, see the design notes) reports through it. Error
// says what went wrong in storage terms: an outcome (LogErrc, which api/
// maps to a Kafka error code), the errno of an I/O failure, and a message
// for the client or the log line. Header-only; thread rules of the value.
#pragma once

#include <cerrno>
#include <string>
#include <system_error>
#include <utility>

#include "common/expected.h"
#include "log/types.h"

namespace skiff::storage {

struct Error {
  LogErrc code = LogErrc::kStorageError;
  int sys_errno = 0;    // an I/O failure's errno, else 0
  std::string message;  // why, in words (INVALID_CONFIG's reason); may be empty

  static Error of(LogErrc c) { return {c, 0, {}}; }
  static Error io(int errno_value) { return {LogErrc::kStorageError, errno_value, {}}; }
  static Error invalid_config(std::string why) { return {LogErrc::kInvalidConfig, 0, std::move(why)}; }
};

template <class T>
using Result = Expected<T, Error>;
using skiff::unexpected;

// A Result's outcome: kNone on success, else its error's.
template <class T>
LogErrc outcome(const Result<T>& r) {
  return r ? LogErrc::kNone : r.error().code;
}  // `return unexpected(Error::io(errno));`

// Startup load and recovery report by exception (the design's one exception
// to Result): an Error as the std::system_error they throw.
[[noreturn]] inline void throw_io(const Error& e, const std::string& what) {
  throw std::system_error(e.sys_errno != 0 ? e.sys_errno : EIO, std::generic_category(), what);
}

}  // namespace skiff::storage
