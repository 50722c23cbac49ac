#include "common/base64.h"

#include <algorithm>
#include <cstdint>

namespace skiff {
namespace {

constexpr std::string_view kStandard = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
constexpr std::string_view kUrlSafe = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

std::string encode(std::string_view in, std::string_view alphabet, bool pad) {
  std::string out;
  out.reserve((in.size() + 2) / 3 * 4);
  for (size_t i = 0; i < in.size(); i += 3) {
    uint32_t v = static_cast<uint32_t>(static_cast<uint8_t>(in[i])) << 16;
    if (i + 1 < in.size()) v |= static_cast<uint32_t>(static_cast<uint8_t>(in[i + 1])) << 8;
    if (i + 2 < in.size()) v |= static_cast<uint8_t>(in[i + 2]);
    out.push_back(alphabet[(v >> 18) & 63]);
    out.push_back(alphabet[(v >> 12) & 63]);
    if (i + 1 < in.size() || pad) out.push_back(i + 1 < in.size() ? alphabet[(v >> 6) & 63] : '=');
    if (i + 2 < in.size() || pad) out.push_back(i + 2 < in.size() ? alphabet[v & 63] : '=');
  }
  return out;
}

// Decodes unpadded text: groups of 4 characters, the last of 2 or 3. Bits
// an encoder leaves zero must be zero.
std::optional<std::string> decode_unpadded(std::string_view in, std::string_view alphabet) {
  if (in.size() % 4 == 1) return std::nullopt;
  std::string out;
  out.reserve(in.size() / 4 * 3 + 2);
  for (size_t i = 0; i < in.size(); i += 4) {
    const size_t n = std::min<size_t>(4, in.size() - i);
    uint32_t v = 0;
    for (size_t k = 0; k < n; ++k) {
      auto d = alphabet.find(in[i + k]);
      if (d == std::string_view::npos) return std::nullopt;
      v |= static_cast<uint32_t>(d) << (18 - 6 * k);
    }
    out.push_back(static_cast<char>(v >> 16));
    if (n > 2) out.push_back(static_cast<char>((v >> 8) & 0xff));
    if (n > 3) out.push_back(static_cast<char>(v & 0xff));
    const uint32_t unused = n == 2 ? 0xffff : n == 3 ? 0xff : 0;
    if (v & unused) return std::nullopt;
  }
  return out;
}

}  // namespace

std::string base64_encode(std::string_view bytes) { return encode(bytes, kStandard, true); }
std::string base64url_encode(std::string_view bytes) { return encode(bytes, kUrlSafe, false); }

std::optional<std::string> base64_decode(std::string_view text) {
  if (text.size() % 4 != 0) return std::nullopt;
  size_t pad = 0;
  while (pad < 2 && pad < text.size() && text[text.size() - 1 - pad] == '=') ++pad;
  return decode_unpadded(text.substr(0, text.size() - pad), kStandard);
}

std::optional<std::string> base64url_decode(std::string_view text) { return decode_unpadded(text, kUrlSafe); }

}  // namespace skiff
