// SCRAM primitives (RFC 5802, RFC 7677) over OpenSSL's libcrypto: Hi()
// (PBKDF2-HMAC), HMAC, H, the keys derived from a salted password, and the
// credential a server keeps: salt, StoredKey, ServerKey and the iteration
// count, never the password. The mechanisms are Kafka's two, with Kafka's codes
// (DescribeUserScramCredentials/AlterUserScramCredentials) and iteration bounds.
// Thread-safe: pure functions (RAND_bytes is thread-safe in OpenSSL 3).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "common/base64.h"

namespace skiff::sasl {

enum class ScramMechanism : int8_t { kSha256 = 1, kSha512 = 2 };

inline constexpr int32_t kScramMinIterations = 4096;   // Kafka's ScramMechanism.minIterations
inline constexpr int32_t kScramMaxIterations = 16384;  // Kafka's ScramControlManager MAX_ITERATIONS

// "SCRAM-SHA-256" / "SCRAM-SHA-512".
std::string_view mechanism_name(ScramMechanism m);
std::optional<ScramMechanism> mechanism_from_name(std::string_view name);
// Kafka's wire code (1, 2); nullopt for 0 (UNKNOWN) and anything else.
std::optional<ScramMechanism> mechanism_from_code(int8_t code);
// Bytes of the mechanism's hash: 32 or 64.
size_t digest_size(ScramMechanism m);

struct ScramCredential {
  std::string salt;        // raw bytes
  std::string stored_key;  // H(ClientKey)
  std::string server_key;  // HMAC(SaltedPassword, "Server Key")
  int32_t iterations = 0;
  bool operator==(const ScramCredential&) const = default;
};

// RFC 5802's functions; keys and results are raw bytes.
std::string scram_hash(ScramMechanism m, std::string_view data);
std::string scram_hmac(ScramMechanism m, std::string_view key, std::string_view data);
std::string scram_hi(ScramMechanism m, std::string_view password, std::string_view salt, int32_t iterations);
std::string scram_client_key(ScramMechanism m, std::string_view salted_password);
std::string scram_server_key(ScramMechanism m, std::string_view salted_password);

// The credential from a salted password (what KIP-554's clients send) or from
// the password itself (what the bootstrap configuration holds).
ScramCredential credential_from_salted_password(ScramMechanism m, std::string_view salted_password, int32_t iterations,
                                                std::string salt);
ScramCredential make_credential(ScramMechanism m, std::string_view password, int32_t iterations, std::string salt);

// `n` bytes from OpenSSL's CSPRNG; throws std::runtime_error if it fails.
std::string random_bytes(size_t n);
// Equal sizes and bytes, in time independent of where they differ.
bool constant_time_equal(std::string_view a, std::string_view b);

}  // namespace skiff::sasl
