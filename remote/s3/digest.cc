#include "remote/s3/digest.h"

#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <stdexcept>

#include "common/base64.h"

namespace skiff::remote::s3 {
namespace {

std::string evp_digest(const EVP_MD* md, std::string_view data) {
  unsigned char out[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  if (EVP_Digest(data.data(), data.size(), out, &len, md, nullptr) != 1) throw std::runtime_error("EVP_Digest failed");
  return std::string(reinterpret_cast<const char*>(out), len);
}

}  // namespace

std::string sha256(std::string_view data) { return evp_digest(EVP_sha256(), data); }

std::string md5(std::string_view data) { return evp_digest(EVP_md5(), data); }

std::string hmac_sha256(std::string_view key, std::string_view data) {
  unsigned char out[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  if (HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()), reinterpret_cast<const unsigned char*>(data.data()),
           data.size(), out, &len) == nullptr)
    throw std::runtime_error("HMAC failed");
  return std::string(reinterpret_cast<const char*>(out), len);
}

std::string hex_lower(std::string_view bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  out.reserve(bytes.size() * 2);
  for (unsigned char c : bytes) {
    out.push_back(kDigits[c >> 4]);
    out.push_back(kDigits[c & 15]);
  }
  return out;
}

std::string content_md5(std::string_view data) { return base64_encode(md5(data)); }

std::string multipart_etag(const std::vector<std::string>& part_md5s_raw) {
  std::string all;
  for (const auto& m : part_md5s_raw) all += m;
  return hex_lower(md5(all)) + "-" + std::to_string(part_md5s_raw.size());
}

}  // namespace skiff::remote::s3
