// Logging for the transaction coordinator: the "api" subsystem logger, and
// the one place a client-chosen transactional id is made safe to print
// (printable ASCII kept, everything else as \xNN, so a hostile id cannot
// forge log lines). When common/ gains the shared escaper, loggable_id()
// becomes a call to it.
//
// Threads: any.
#pragma once

#include <string>
#include <string_view>

#include "api/api_log.h"

namespace skiff::api::txn {

inline std::string loggable_id(std::string_view id) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(id.size() + 2);
  out.push_back('"');
  for (unsigned char c : id) {
    if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\') {
      out.push_back(static_cast<char>(c));
    } else {
      out += "\\x";
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 15]);
    }
  }
  out.push_back('"');
  return out;
}

inline spdlog::logger& txn_log() { return api_log(); }

}  // namespace skiff::api::txn
