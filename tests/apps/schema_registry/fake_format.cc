#include "fake_format.h"

#include <algorithm>
#include <atomic>
#include <sstream>

namespace skiff::schemareg::testing {
namespace {

std::atomic<int> g_parses{0};

struct Field {
  std::string name;
  std::string type;
  bool has_default = false;
};

class FakeSchema : public schema::ParsedSchema {
 public:
  FakeSchema(schema::SchemaType type, std::vector<std::string> tokens, std::vector<Field> fields)
      : type_(type), tokens_(std::move(tokens)), fields_(std::move(fields)) {}
  schema::SchemaType type() const override { return type_; }
  std::string canonical() const override { return join(tokens_); }
  std::string normalized() const override {
    auto sorted = tokens_;
    std::sort(sorted.begin(), sorted.end());
    return join(sorted);
  }
  std::vector<std::string> incompatibilities(const schema::ParsedSchema& writer) const override {
    if (writer.type() != type_) return {"Incompatible because of different schema type"};
    const auto& w = static_cast<const FakeSchema&>(writer);
    std::vector<std::string> out;
    for (size_t i = 0; i < fields_.size(); ++i) {
      const auto& f = fields_[i];
      const auto it =
          std::find_if(w.fields_.begin(), w.fields_.end(), [&](const Field& o) { return o.name == f.name; });
      const auto path = "/fields/" + std::to_string(i);
      if (it == w.fields_.end() && !f.has_default) {
        out.push_back("{errorType:'READER_FIELD_MISSING_DEFAULT_VALUE', description:'The field '" + f.name +
                      "' at path '" + path +
                      "' in the %s schema has no default value and is missing in the %s schema', additionalInfo:'" +
                      f.name + "'}");
      } else if (it != w.fields_.end() && it->type != f.type) {
        out.push_back("{errorType:'TYPE_MISMATCH', description:'The type (path '" + path +
                      "/type') of a field in the %s schema does not match with the %s schema', additionalInfo:'" +
                      f.type + "'}");
      }
    }
    return out;
  }

  // The payload as a JSON string, for the console's port tests.
  Expected<schema::DecodedValue, std::string> decode(std::string_view payload) const override {
    if (payload.empty()) return unexpected(std::string("empty"));
    return schema::DecodedValue{"\"" + std::string(payload) + "\"", "Fake"};
  }

 private:
  static std::string join(const std::vector<std::string>& t) {
    std::string out;
    for (const auto& s : t) out += (out.empty() ? "" : " ") + s;
    return out;
  }
  schema::SchemaType type_;
  std::vector<std::string> tokens_;
  std::vector<Field> fields_;
};

}  // namespace

int fake_parse_count() { return g_parses.load(); }

schema::ParseResult parse_fake(const schema::SchemaSource& source) {
  ++g_parses;
  std::istringstream in(source.text);
  std::vector<std::string> tokens;
  std::vector<Field> fields;
  for (std::string tok; in >> tok;) {
    const auto colon = tok.find(':');
    if (colon == std::string::npos || colon == 0) return unexpected(schema::ParseError{"bad field '" + tok + "'"});
    tokens.push_back(tok);
    if (tok.substr(0, colon) == "ref") {
      const auto name = tok.substr(colon + 1);
      const bool found = std::any_of(source.resolved.begin(), source.resolved.end(),
                                     [&](const schema::ResolvedReference& r) { return r.name == name; });
      if (!found) return unexpected(schema::ParseError{"unresolved reference " + name});
      continue;
    }
    Field f{tok.substr(0, colon), tok.substr(colon + 1)};
    if (const auto eq = f.type.find('='); eq != std::string::npos) {
      f.type = f.type.substr(0, eq);
      f.has_default = true;
    }
    fields.push_back(f);
  }
  if (tokens.empty()) return unexpected(schema::ParseError{"no fields"});
  return std::unique_ptr<schema::ParsedSchema>(std::make_unique<FakeSchema>(source.type, tokens, fields));
}

}  // namespace skiff::schemareg::testing
