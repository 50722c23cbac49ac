// Digests S3 requests need, over OpenSSL's libcrypto: SHA-256 (the payload
// hash of `x-amz-content-sha256` and SigV4's canonical-request hash),
// HMAC-SHA256 (SigV4's key derivation and signature) and MD5 (Content-MD5,
// and the ETags S3 derives from it). Pure functions, any thread.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace skiff::remote::s3 {

std::string sha256(std::string_view data);                             // 32 raw bytes
std::string hmac_sha256(std::string_view key, std::string_view data);  // 32 raw bytes
std::string md5(std::string_view data);                                // 16 raw bytes
std::string hex_lower(std::string_view bytes);
inline std::string sha256_hex(std::string_view data) { return hex_lower(sha256(data)); }
// Content-MD5's value: the base64 of the MD5 of the body.
std::string content_md5(std::string_view data);
// The ETag S3 gives a completed multipart upload: the MD5 of the parts' MD5s
// (raw, concatenated), in hex, then "-" and the part count.
std::string multipart_etag(const std::vector<std::string>& part_md5s_raw);

}  // namespace skiff::remote::s3
