// to_error_code: the one place a storage outcome (log/'s LogErrc) becomes
// a Kafka error code. Shared by the coordinators, which write their internal
// topics, and by the API handlers. In namespace skiff, beside ErrorCode
// (protocol/error_codes.h), so every layer above log/ and protocol/ calls it
// unqualified. Pure function; any thread.
#pragma once

#include "log/types.h"
#include "protocol/error_codes.h"

namespace skiff {

ErrorCode to_error_code(storage::LogErrc e);

}  // namespace skiff
