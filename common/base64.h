// Base64 (RFC 4648): the standard alphabet with padding (SCRAM's salts,
// nonces and proofs) and the URL-safe alphabet without padding (JWS parts,
// RFC 7515). Decoding is strict: nullopt on any character outside the
// alphabet, wrong padding or a length no encoder produces. Pure functions.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace skiff {

std::string base64_encode(std::string_view bytes);
std::optional<std::string> base64_decode(std::string_view text);

std::string base64url_encode(std::string_view bytes);                // no padding
std::optional<std::string> base64url_decode(std::string_view text);  // no padding

}  // namespace skiff
