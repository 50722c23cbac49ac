// Logging for the transaction coordinator: the "coordinator" subsystem logger, and
// the one place a client-chosen transactional id is made safe to print:
// quoted, through the broker's shared escaper (common/log_escape.h), so a
// hostile id cannot forge log lines.
//
// Threads: any.
#pragma once

#include <string>
#include <string_view>

#include "common/log_escape.h"
#include "coordinator/runtime/coordinator_log.h"

namespace skiff::txn {

inline std::string loggable_id(std::string_view id) { return "\"" + escape_for_log(id) + "\""; }

inline spdlog::logger& txn_log() { return coordinator::log(); }

}  // namespace skiff::txn
