// The property the request-frame fuzzer checks, shared with the corpus
// replay test so that CI re-checks every corpus input without libFuzzer.
#pragma once

#include <cstdint>
#include <span>
#include <string>

namespace skiff::protocol::fuzz {

// Decodes a request frame body (header + body). Malformed input is fine (it
// must only raise DecodeError); whatever decodes must re-encode, and
// decode(encode(m)) must equal m with identical bytes on re-encoding.
// Returns an empty string on success, else what went wrong.
std::string check_request_frame(std::span<const uint8_t> frame);

}  // namespace skiff::protocol::fuzz
