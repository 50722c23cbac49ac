#include "config/jaas.h"

#include <fmt/format.h>

#include <cctype>
#include <stdexcept>

namespace skiff::config {
namespace {

bool is_word_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '-' || c == '$' || c == '/';
}

class JaasLexer {
 public:
  explicit JaasLexer(std::string_view text) : text_(text) {}

  void skip_space() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }
  bool at_end() {
    skip_space();
    return pos_ >= text_.size();
  }
  bool take(char c) {
    skip_space();
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  std::string word(const char* what) {
    skip_space();
    size_t start = pos_;
    while (pos_ < text_.size() && is_word_char(text_[pos_])) ++pos_;
    if (pos_ == start) throw std::invalid_argument(fmt::format("expected {} at offset {}", what, start));
    return std::string(text_.substr(start, pos_ - start));
  }
  // A bare word or a double-quoted string.
  std::string value() {
    skip_space();
    if (pos_ >= text_.size() || text_[pos_] != '"') return word("a value");
    std::string out;
    for (++pos_; pos_ < text_.size(); ++pos_) {
      char c = text_[pos_];
      if (c == '"') {
        ++pos_;
        return out;
      }
      if (c == '\\' && pos_ + 1 < text_.size()) c = text_[++pos_];
      out += c;
    }
    throw std::invalid_argument("a quoted value is not closed");
  }

 private:
  std::string_view text_;
  size_t pos_ = 0;
};

}  // namespace

JaasEntry parse_jaas_config(std::string_view text) {
  JaasLexer lex(text);
  if (lex.at_end()) throw std::invalid_argument("empty JAAS configuration");
  JaasEntry entry;
  entry.login_module = lex.word("a login module class name");
  entry.flag = lex.word("a control flag");
  if (entry.flag != "required" && entry.flag != "requisite" && entry.flag != "sufficient" && entry.flag != "optional")
    throw std::invalid_argument(
        fmt::format("control flag '{}' is not one of required, requisite, sufficient, optional", entry.flag));
  while (!lex.take(';')) {
    if (lex.at_end()) throw std::invalid_argument("the login module entry must end with ';'");
    auto key = lex.word("an option name");
    if (!lex.take('=')) throw std::invalid_argument(fmt::format("option '{}' has no '=value'", key));
    entry.options[key] = lex.value();
  }
  if (!lex.at_end())
    throw std::invalid_argument("expected one login module: sasl.jaas.config holds a single entry ending with ';'");
  return entry;
}

}  // namespace skiff::config
