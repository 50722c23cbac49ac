#include "config/properties_file.h"

#include <cstdint>

namespace skiff::config {
namespace {

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\f'; }

// The logical lines: comments and blank lines dropped, continuations joined
// (the next line's leading white space dropped, as Java does).
std::vector<std::string> logical_lines(std::string_view text) {
  std::vector<std::string> out;
  std::string current;
  bool continuing = false;
  size_t pos = 0;
  while (pos <= text.size()) {
    auto end = text.find_first_of("\r\n", pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    if (end < text.size() && text[end] == '\r' && pos < text.size() && text[pos] == '\n') ++pos;
    size_t i = 0;
    while (i < line.size() && is_space(line[i])) ++i;
    line.remove_prefix(i);
    if (!continuing && (line.empty() || line[0] == '#' || line[0] == '!')) {
      if (end == text.size()) break;
      continue;
    }
    size_t slashes = 0;
    while (slashes < line.size() && line[line.size() - 1 - slashes] == '\\') ++slashes;
    continuing = slashes % 2 == 1;
    current += continuing ? line.substr(0, line.size() - 1) : line;
    if (!continuing) {
      out.push_back(std::move(current));
      current.clear();
    }
    if (end == text.size()) break;
  }
  if (!current.empty()) out.push_back(std::move(current));
  return out;
}

void append_utf8(std::string& out, uint32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

// Reads one escape after the backslash at s[i]; returns the index after it.
size_t unescape_one(std::string_view s, size_t i, std::string& out) {
  if (i + 1 >= s.size()) return i + 1;
  char c = s[i + 1];
  switch (c) {
    case 't':
      out += '\t';
      return i + 2;
    case 'n':
      out += '\n';
      return i + 2;
    case 'r':
      out += '\r';
      return i + 2;
    case 'f':
      out += '\f';
      return i + 2;
    case 'u': {
      uint32_t cp = 0;
      size_t j = i + 2;
      for (; j < s.size() && j < i + 6; ++j) {
        char h = s[j];
        int v = h >= '0' && h <= '9'   ? h - '0'
                : h >= 'a' && h <= 'f' ? h - 'a' + 10
                : h >= 'A' && h <= 'F' ? h - 'A' + 10
                                       : -1;
        if (v < 0) break;
        cp = cp * 16 + static_cast<uint32_t>(v);
      }
      append_utf8(out, cp);
      return j;
    }
    default:
      out += c;
      return i + 2;
  }
}

}  // namespace

std::vector<std::pair<std::string, std::string>> parse_properties(std::string_view text) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& line : logical_lines(text)) {
    std::string_view s(line);
    std::string key, value;
    size_t i = 0;
    while (i < s.size() && s[i] != '=' && s[i] != ':' && !is_space(s[i])) {
      if (s[i] == '\\')
        i = unescape_one(s, i, key);
      else
        key += s[i++];
    }
    while (i < s.size() && is_space(s[i])) ++i;
    if (i < s.size() && (s[i] == '=' || s[i] == ':')) ++i;
    while (i < s.size() && is_space(s[i])) ++i;
    while (i < s.size()) {
      if (s[i] == '\\')
        i = unescape_one(s, i, value);
      else
        value += s[i++];
    }
    out.emplace_back(std::move(key), std::move(value));
  }
  return out;
}

}  // namespace skiff::config
