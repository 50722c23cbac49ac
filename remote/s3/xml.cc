#include "remote/s3/xml.h"

#include <cstdint>

namespace skiff::remote::s3 {
namespace {

void append_utf8(std::string& out, uint32_t cp) {
  if (cp < 0x80) {
    out.push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out.push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

std::optional<uint32_t> numeric_ref(std::string_view body) {
  // body: "#123" or "#x1F"
  bool hex = body.size() > 1 && (body[1] == 'x' || body[1] == 'X');
  std::string_view digits = body.substr(hex ? 2 : 1);
  if (digits.empty() || digits.size() > 8) return std::nullopt;
  uint32_t v = 0;
  for (char c : digits) {
    int d;
    if (c >= '0' && c <= '9')
      d = c - '0';
    else if (hex && c >= 'a' && c <= 'f')
      d = c - 'a' + 10;
    else if (hex && c >= 'A' && c <= 'F')
      d = c - 'A' + 10;
    else
      return std::nullopt;
    v = v * (hex ? 16 : 10) + static_cast<uint32_t>(d);
  }
  if (v == 0 || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF)) return std::nullopt;
  return v;
}

class Parser {
 public:
  Parser(std::string_view doc, const XmlLimits& limits) : s_(doc), limits_(limits) {}

  Expected<XmlElement, std::string> document() {
    if (s_.size() > limits_.max_bytes) return unexpected(std::string("XML document too large"));
    skip_prolog();
    if (!error_.empty()) return unexpected(error_);
    if (!peek("<")) return fail_now("no root element");
    XmlElement root;
    if (!element(root, 1)) return unexpected(error_);
    skip_misc();
    if (!error_.empty()) return unexpected(error_);
    if (pos_ != s_.size()) return fail_now("content after the root element");
    return root;
  }

 private:
  Unexpected<std::string> fail_now(const std::string& what) {
    return unexpected(what + " at byte " + std::to_string(pos_));
  }
  bool fail(const std::string& what) {
    if (error_.empty()) error_ = what + " at byte " + std::to_string(pos_);
    return false;
  }
  bool peek(std::string_view p) const { return s_.substr(pos_, p.size()) == p; }
  void skip_ws() {
    while (pos_ < s_.size() && (s_[pos_] == ' ' || s_[pos_] == '\t' || s_[pos_] == '\r' || s_[pos_] == '\n')) ++pos_;
  }
  bool skip_past(std::string_view end) {
    auto e = s_.find(end, pos_);
    if (e == std::string_view::npos) return fail("unterminated construct");
    pos_ = e + end.size();
    return true;
  }
  void skip_misc() {
    for (;;) {
      skip_ws();
      if (peek("<!--")) {
        if (!skip_past("-->")) return;
      } else {
        return;
      }
    }
  }
  void skip_prolog() {
    if (s_.substr(0, 3) == "\xEF\xBB\xBF") pos_ = 3;
    skip_ws();
    if (peek("<?xml") && !skip_past("?>")) return;
    skip_misc();
    if (peek("<!")) fail("DTDs are not accepted");
  }
  static bool name_char(char c) {
    return c != ' ' && c != '\t' && c != '\r' && c != '\n' && c != '>' && c != '/' && c != '=' && c != '<' &&
           c != '"' && c != '\'' && c != '&';
  }
  std::string_view name() {
    size_t b = pos_;
    while (pos_ < s_.size() && name_char(s_[pos_])) ++pos_;
    return s_.substr(b, pos_ - b);
  }
  bool attributes(bool& self_closing) {
    for (;;) {
      skip_ws();
      if (pos_ >= s_.size()) return fail("unterminated start tag");
      if (peek("/>")) {
        pos_ += 2;
        self_closing = true;
        return true;
      }
      if (s_[pos_] == '>') {
        ++pos_;
        return true;
      }
      if (name().empty()) return fail("bad attribute name");
      skip_ws();
      if (!peek("=")) return fail("attribute without '='");
      ++pos_;
      skip_ws();
      if (pos_ >= s_.size() || (s_[pos_] != '"' && s_[pos_] != '\'')) return fail("unquoted attribute value");
      const char quote = s_[pos_++];
      auto e = s_.find(quote, pos_);
      if (e == std::string_view::npos) return fail("unterminated attribute value");
      if (!decode_xml_entities(s_.substr(pos_, e - pos_))) return fail("bad entity in attribute");
      pos_ = e + 1;
    }
  }
  bool text(XmlElement& el) {
    auto e = s_.find('<', pos_);
    if (e == std::string_view::npos) return fail("unterminated element");
    auto decoded = decode_xml_entities(s_.substr(pos_, e - pos_));
    if (!decoded) return fail("bad entity reference");
    el.text += *decoded;
    pos_ = e;
    return true;
  }
  static std::string_view local(std::string_view n) {
    auto colon = n.find(':');
    return colon == std::string_view::npos ? n : n.substr(colon + 1);
  }
  // At '<' of a start tag.
  bool element(XmlElement& el, size_t depth) {
    if (depth > limits_.max_depth) return fail("XML nested too deeply");
    if (++elements_ > limits_.max_elements) return fail("too many XML elements");
    ++pos_;
    const auto full = name();
    if (full.empty()) return fail("bad element name");
    el.name = std::string(local(full));
    bool self_closing = false;
    if (!attributes(self_closing)) return false;
    if (self_closing) return true;
    return content(el, full, depth);
  }
  bool content(XmlElement& el, std::string_view full, size_t depth) {
    for (;;) {
      if (pos_ >= s_.size()) return fail("unterminated element <" + std::string(full) + ">");
      if (s_[pos_] != '<') {
        if (!text(el)) return false;
      } else if (peek("</")) {
        pos_ += 2;
        if (name() != full) return fail("mismatched end tag for <" + std::string(full) + ">");
        skip_ws();
        if (!peek(">")) return fail("bad end tag");
        ++pos_;
        return true;
      } else if (peek("<!--")) {
        if (!skip_past("-->")) return false;
      } else if (peek("<![CDATA[")) {
        pos_ += 9;
        auto e = s_.find("]]>", pos_);
        if (e == std::string_view::npos) return fail("unterminated CDATA");
        el.text.append(s_.substr(pos_, e - pos_));
        pos_ = e + 3;
      } else if (peek("<!") || peek("<?")) {
        return fail("unexpected markup");
      } else {
        el.children.emplace_back();
        if (!element(el.children.back(), depth + 1)) return false;
      }
    }
  }

  std::string_view s_;
  XmlLimits limits_;
  size_t pos_ = 0;
  size_t elements_ = 0;
  std::string error_;
};

}  // namespace

std::optional<std::string> decode_xml_entities(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '&') {
      out.push_back(s[i]);
      continue;
    }
    auto semi = s.find(';', i);
    if (semi == std::string_view::npos || semi - i > 12) return std::nullopt;
    auto body = s.substr(i + 1, semi - i - 1);
    if (body == "lt")
      out.push_back('<');
    else if (body == "gt")
      out.push_back('>');
    else if (body == "amp")
      out.push_back('&');
    else if (body == "quot")
      out.push_back('"');
    else if (body == "apos")
      out.push_back('\'');
    else if (body.starts_with("#")) {
      auto cp = numeric_ref(body);
      if (!cp) return std::nullopt;
      append_utf8(out, *cp);
    } else {
      return std::nullopt;
    }
    i = semi;
  }
  return out;
}

std::string xml_escape(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&apos;";
        break;
      case '\r':
        out += "&#13;";
        break;
      default:
        out.push_back(c);
    }
  }
  return out;
}

const XmlElement* XmlElement::child(std::string_view n) const {
  for (const auto& c : children)
    if (c.name == n) return &c;
  return nullptr;
}

std::optional<std::string> XmlElement::child_text(std::string_view n) const {
  const auto* c = child(n);
  if (c == nullptr) return std::nullopt;
  return c->text;
}

std::vector<const XmlElement*> XmlElement::all(std::string_view n) const {
  std::vector<const XmlElement*> out;
  for (const auto& c : children)
    if (c.name == n) out.push_back(&c);
  return out;
}

Expected<XmlElement, std::string> parse_xml(std::string_view doc, const XmlLimits& limits) {
  return Parser(doc, limits).document();
}

}  // namespace skiff::remote::s3
