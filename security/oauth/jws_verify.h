// JWS signature verification (RFC 7515/7518) over OpenSSL's libcrypto, with
// jose4j's key checks: RS*/PS* need an RSA key of at least 2048 bits (PSS
// with MGF1 of the same hash and a salt of the hash's length), ES* an EC key
// on the algorithm's curve and the R||S signature form, EdDSA an Ed25519 or
// Ed448 key, HS* a secret of at least the hash's length. Pure functions.
#pragma once

#include <string>
#include <string_view>

#include "security/oauth/jwks.h"

namespace skiff::oauth {

// Whether `signature` (decoded bytes) signs `signing_input` ("<header>.<payload>")
// under `alg` with `key`; when not, `why` says so.
bool verify_jws_signature(std::string_view alg, std::string_view signing_input, std::string_view signature,
                          const Jwk& key, std::string& why);

}  // namespace skiff::oauth
