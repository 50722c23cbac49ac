// Escaping of client-supplied strings for the broker's log. A client id,
// group id, member id, transactional id or topic name comes from the wire and
// may hold a newline (forging a log line), a terminal escape sequence
// (rewriting what an operator sees) or bytes that are not UTF-8. Every such
// string reaches a log line through escaped():
//
//   api_log().warn("client {} sent ...", escaped(client_id));
//
// What changes: the C0 controls and DEL (\n \r \t as such, others \xNN),
// the backslash itself (\\, so an escape cannot be forged either), C1
// controls, line/paragraph separators and bidirectional overrides (\u{NNNN}),
// and each byte of invalid UTF-8 (\xNN). Printable ASCII and valid UTF-8
// pass through unchanged; a string with nothing to escape is not copied.
// Header-only and dependency-free but for fmt (which spdlog carries).
// Threads: pure functions.
#pragma once

#include <fmt/format.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "common/utf8.h"

namespace skiff {

namespace log_escape_detail {

using skiff::utf8_length;

// Code points that move the cursor, end a line or reorder text on a terminal.
inline bool unsafe_code_point(uint32_t cp) {
  return (cp >= 0x80 && cp <= 0x9F) ||                                    // C1 controls (0x9B is CSI)
         cp == 0x2028 || cp == 0x2029 ||                                  // line and paragraph separators
         (cp >= 0x202A && cp <= 0x202E) ||                                // bidi embeddings and overrides
         (cp >= 0x2066 && cp <= 0x2069) || cp == 0x200E || cp == 0x200F;  // bidi isolates, marks
}

inline bool plain(uint8_t c) { return c >= 0x20 && c < 0x7F && c != '\\'; }

}  // namespace log_escape_detail

// `s` with everything a log line must not carry escaped (see above).
inline std::string escape_for_log(std::string_view s) {
  namespace d = log_escape_detail;
  std::string out;
  out.reserve(s.size() + 8);
  for (size_t i = 0; i < s.size();) {
    const auto c = static_cast<uint8_t>(s[i]);
    if (d::plain(c)) {
      out += static_cast<char>(c);
      ++i;
      continue;
    }
    switch (c) {
      case '\\':
        out += "\\\\";
        ++i;
        continue;
      case '\n':
        out += "\\n";
        ++i;
        continue;
      case '\r':
        out += "\\r";
        ++i;
        continue;
      case '\t':
        out += "\\t";
        ++i;
        continue;
      default:
        break;
    }
    uint32_t cp = 0;
    const size_t n = c >= 0x80 ? d::utf8_length(s, i, cp) : 0;
    if (n == 0) {
      out += fmt::format("\\x{:02x}", c);
      ++i;
    } else if (d::unsafe_code_point(cp)) {
      out += fmt::format("\\u{{{:04x}}}", cp);
      i += n;
    } else {
      out.append(s.substr(i, n));
      i += n;
    }
  }
  return out;
}

// True when escape_for_log(s) == s (the common case: no copy needed).
inline bool log_safe(std::string_view s) {
  for (char ch : s)
    if (!log_escape_detail::plain(static_cast<uint8_t>(ch))) return false;
  return true;
}

// A client string on its way to a log line; formats escaped.
struct Escaped {
  std::string_view text;
  bool null = false;  // a null string (nullable protocol field): "null"
};

inline Escaped escaped(std::string_view s) { return {s}; }
inline Escaped escaped(const std::string& s) { return {s}; }
inline Escaped escaped(const char* s) { return {s}; }
inline Escaped escaped(const std::optional<std::string>& s) { return s ? Escaped{*s} : Escaped{{}, true}; }

}  // namespace skiff

template <>
struct fmt::formatter<skiff::Escaped> : fmt::formatter<std::string_view> {
  template <class FormatContext>
  auto format(const skiff::Escaped& e, FormatContext& ctx) const {
    if (e.null) return fmt::formatter<std::string_view>::format("null", ctx);
    if (skiff::log_safe(e.text)) return fmt::formatter<std::string_view>::format(e.text, ctx);
    const std::string s = skiff::escape_for_log(e.text);
    return fmt::formatter<std::string_view>::format(s, ctx);
  }
};
