// to_error_code: the one place a storage outcome (log/'s LogErrc, or the
// outcome of a storage::Error) becomes a Kafka error code. Shared by the
// coordinators, which write their internal topics, and by the API
// handlers. In namespace skiff, beside ErrorCode (protocol/error_codes.h),
// so every layer above log/ and protocol/ calls it unqualified. Pure
// function; any thread.
#pragma once

#include "log/result.h"
#include "log/types.h"
#include "protocol/error_codes.h"

namespace skiff {

ErrorCode to_error_code(storage::LogErrc e);
// The same for a storage::Result's error: its outcome's code.
inline ErrorCode to_error_code(const storage::Error& e) { return to_error_code(e.code); }

}  // namespace skiff
