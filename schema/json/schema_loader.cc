// Documents, drafts and $ref resolution of the loader (the keywords of one
// object are loader_keywords.cc's and loader_facets.cc's).
#include "schema/json/schema_loader.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <unordered_map>

#include "schema/json/loader_internal.h"

namespace skiff::schema::json {

namespace {

using Kind = JsonValue::Kind;

std::string escape_token(std::string_view key) {
  std::string out;
  for (const char c : key) {
    if (c == '~')
      out += "~0";
    else if (c == '/')
      out += "~1";
    else
      out += c;
  }
  return out;
}

std::string unescape_token(std::string_view t) {
  std::string pct;
  for (size_t i = 0; i < t.size(); ++i) {  // a URI fragment: percent-encoded
    unsigned v = 0;
    if (t[i] == '%' && i + 2 < t.size() &&
        std::from_chars(t.data() + i + 1, t.data() + i + 3, v, 16).ptr == t.data() + i + 3) {
      pct += static_cast<char>(v);
      i += 2;
    } else {
      pct += t[i];
    }
  }
  std::string out;
  for (size_t i = 0; i < pct.size(); ++i) {
    if (pct[i] == '~' && i + 1 < pct.size() && (pct[i + 1] == '0' || pct[i + 1] == '1')) {
      out += pct[i + 1] == '0' ? '~' : '/';
      ++i;
    } else {
      out += pct[i];
    }
  }
  return out;
}

bool has_scheme(std::string_view uri) {
  const size_t colon = uri.find(':');
  if (colon == std::string_view::npos || colon == 0) return false;
  for (size_t i = 0; i < colon; ++i)
    if (!std::isalnum(static_cast<unsigned char>(uri[i])) && uri[i] != '+' && uri[i] != '-' && uri[i] != '.')
      return false;
  return std::isalpha(static_cast<unsigned char>(uri[0]));
}

// RFC 3986 reference resolution, enough for schema names: absolute
// references as they are, others against the base's directory.
std::string resolve_uri(const std::string& base, const std::string& ref) {
  std::string out;
  if (has_scheme(ref) || base.empty()) {
    out = ref;
  } else if (!ref.empty() && ref[0] == '/') {
    const size_t auth = base.find("://");
    const size_t path = auth == std::string::npos ? 0 : base.find('/', auth + 3);
    out = (path == std::string::npos ? base : base.substr(0, path)) + ref;
  } else {
    const std::string no_frag = base.substr(0, base.find('#'));
    const size_t slash = no_frag.rfind('/');
    out = (slash == std::string::npos ? std::string() : no_frag.substr(0, slash + 1)) + ref;
  }
  for (size_t at; (at = out.find("/./")) != std::string::npos;) out.erase(at, 2);
  while (out.rfind("./", 0) == 0) out.erase(0, 2);
  return out;
}

bool is_meta_schema(std::string_view uri) {
  return uri.find("json-schema.org/") != std::string_view::npos && uri.find("schema") != std::string_view::npos &&
         uri.find("json-schema.org/") < 16;
}

}  // namespace

const char* draft_name(Draft d) {
  switch (d) {
    case Draft::k4:
      return "draft-04";
    case Draft::k6:
      return "draft-06";
    case Draft::k7:
      return "draft-07";
    case Draft::k2019_09:
      return "draft 2019-09";
    case Draft::k2020_12:
      return "draft 2020-12";
  }
  return "draft-07";
}

std::optional<Draft> draft_from_url(std::string_view url) {
  std::string_view exact = url;  // Confluent's own lookup, for the drafts json-sKema loads
  if (!exact.empty() && exact.back() == '#') exact.remove_suffix(1);
  for (std::string_view scheme : {"http://", "https://"}) {
    if (url.substr(0, scheme.size()) != scheme) continue;
    if (exact.substr(scheme.size()) == "json-schema.org/draft/2019-09/schema") return Draft::k2019_09;
    if (exact.substr(scheme.size()) == "json-schema.org/draft/2020-12/schema") return Draft::k2020_12;
    const std::string_view rest = url.substr(scheme.size());  // everit's: a prefix of the URL
    if (rest.rfind("json-schema.org/draft-04/schema", 0) == 0 || rest.rfind("json-schema.org/schema", 0) == 0)
      return Draft::k4;
    if (rest.rfind("json-schema.org/draft-06/schema", 0) == 0) return Draft::k6;
    if (rest.rfind("json-schema.org/draft-07/schema", 0) == 0) return Draft::k7;
  }
  return std::nullopt;
}

Where Where::child(std::string_view key) const { return Where{doc, pointer + "/" + escape_token(key)}; }
Where Where::index(size_t i) const { return Where{doc, pointer + "/" + std::to_string(i)}; }

void Loader::fail(const Where& at, const std::string& why) {
  throw LoadFailure{at.pointer.empty() ? why : at.pointer + ": " + why};
}

std::string Loader::java_type(const JsonValue& v) {
  switch (v.kind) {
    case Kind::kNull:
      return "Null";
    case Kind::kBool:
      return "Boolean";
    case Kind::kString:
      return "String";
    case Kind::kArray:
      return "JsonArray";
    case Kind::kObject:
      return "JsonObject";
    case Kind::kNumber: {
      const auto& t = v.number_text;
      if (t.find_first_of(".eE") != std::string::npos) return "BigDecimal";
      int64_t n = 0;
      if (std::from_chars(t.data(), t.data() + t.size(), n).ec != std::errc()) return "BigInteger";
      return n >= INT32_MIN && n <= INT32_MAX ? "Integer" : "Long";
    }
  }
  return "null";
}

void Loader::expected(const Where& at, const JsonValue& v, const std::string& type) {
  const bool choice = type.rfind("is one of", 0) == 0;
  fail(at, (choice ? "expected type " : "expected type: ") + type + ", found: " + java_type(v));
}

const JsonValue& Loader::document_root(size_t doc, const Where& at) {
  auto& d = out_.documents[doc];
  if (!d.root) {
    auto parsed = parse_json(d.text, kMaxDepth + 2);
    if (!parsed) fail(at, "the referenced schema '" + d.name + "' is not valid JSON");
    d.root = std::make_unique<JsonValue>(std::move(*parsed));
    if (d.root->kind != Kind::kObject && d.root->kind != Kind::kBool)
      fail(at, "the referenced schema '" + d.name + "' is not a JSON object or boolean");
  }
  return *d.root;
}

std::string Loader::base_of(size_t doc) {
  const JsonValue& root = *out_.documents[doc].root;
  const JsonValue* id = root.kind == Kind::kObject ? root.find(draft() == Draft::k4 ? "id" : "$id") : nullptr;
  return id && id->kind == Kind::kString ? id->string : std::string();
}

const Node* Loader::load_document(size_t doc) {
  const Node* root =
      load(document_root(doc, Where{doc, "#"}), Where{doc, doc == 0 ? "#" : out_.documents[doc].name + "#"}, 0);
  resolve_pending();
  return root;
}

Node* Loader::reference(const JsonValue& ref, const Where& at) {
  if (ref.kind != Kind::kString) expected(at, ref, "String");
  Node* n = make(NodeKind::kReference, &ref);
  n->ref = ref.string;
  pending_.push_back(Pending{n, ref.string, at});
  return n;
}

void Loader::resolve_pending() {
  for (size_t i = 0; i < pending_.size(); ++i) {  // loading a target may add more
    Pending p = pending_[i];
    Target t = resolve(p.ref, p.at);
    if (!t.value) {
      p.node->referred = meta_schema_ ? meta_schema_ : (meta_schema_ = make(NodeKind::kEmpty, nullptr));
      continue;
    }
    const std::string key = std::to_string(t.doc) + t.pointer;
    auto it = targets_.find(key);
    if (it == targets_.end()) {
      const std::string shown = t.doc == 0 ? t.pointer : out_.documents[t.doc].name + t.pointer;
      it = targets_.emplace(key, load(*t.value, Where{t.doc, shown}, 0)).first;
    }
    p.node->referred = it->second;
  }
  pending_.clear();
}

Loader::Target Loader::resolve(const std::string& ref, const Where& at) {
  const size_t hash = ref.find('#');
  const std::string uri = ref.substr(0, hash);
  const std::string fragment = hash == std::string::npos ? std::string() : ref.substr(hash + 1);
  size_t doc = at.doc;
  if (!uri.empty()) {
    const std::string absolute = resolve_uri(base_of(at.doc), uri);
    if (const JsonValue* byid = find_by_id(at.doc, absolute); byid && fragment.empty())
      return Target{at.doc, "#id:" + absolute, byid};
    if (const JsonValue* byid = find_by_id(at.doc, uri); byid && fragment.empty())
      return Target{at.doc, "#id:" + uri, byid};
    if (is_meta_schema(uri)) return Target{0, "", nullptr};
    doc = document_for(uri, at, ref);
  }
  const JsonValue& root = document_root(doc, at);
  const JsonValue* value = &root;
  std::string missing;
  if (!fragment.empty() && fragment[0] == '/') {
    value = evaluate_pointer(doc, fragment, missing);
    if (!value) fail(Where{doc, doc == 0 ? "" : out_.documents[doc].name}, missing);
  } else if (!fragment.empty()) {
    value = find_by_id(doc, "#" + fragment);
  }
  if (!value) fail(at, "could not resolve $ref '" + ref + "': no such location");
  return Target{doc, "#" + fragment, value};
}

size_t Loader::document_for(const std::string& uri, const Where& at, const std::string& ref) {
  const std::string base = base_of(at.doc);
  const std::string wanted = resolve_uri(base, uri);
  for (size_t d = 1; d < out_.documents.size(); ++d) {
    const std::string& name = out_.documents[d].name;
    if (name != uri && resolve_uri(base, name) != wanted && resolve_uri("", name) != resolve_uri("", uri)) continue;
    if (std::find(out_.external_refs.begin(), out_.external_refs.end(), name) == out_.external_refs.end())
      out_.external_refs.push_back(name);
    return d;
  }
  fail(at, "could not resolve $ref '" + ref + "': no schema reference is named '" + uri +
               "' (remote schemas are not fetched)");
}

const JsonValue* Loader::find_by_id(size_t doc, const std::string& id) {
  auto [it, fresh] = ids_.try_emplace(doc);
  if (fresh) {
    const std::string id_key = draft() == Draft::k4 ? "id" : "$id";
    const std::string base = base_of(doc);
    std::vector<const JsonValue*> todo{out_.documents[doc].root.get()};
    while (!todo.empty()) {  // a work list: documents are bounded in depth, not in width
      const JsonValue* v = todo.back();
      todo.pop_back();
      for (const auto& e : v->array) todo.push_back(&e);
      for (const auto& m : v->members) {
        todo.push_back(&m.value);
        if (m.value.kind != Kind::kString) continue;
        if (m.name == id_key) {
          it->second.emplace(m.value.string, v);
          it->second.emplace(resolve_uri(base, m.value.string), v);
        } else if (m.name == "$anchor") {
          it->second.emplace("#" + m.value.string, v);
        }
      }
    }
  }
  auto found = it->second.find(id);
  return found == it->second.end() ? nullptr : found->second;
}

const JsonValue* Loader::evaluate_pointer(size_t doc, const std::string& fragment, std::string& missing) {
  const JsonValue* v = out_.documents[doc].root.get();
  std::string at = "#";
  size_t start = 1;
  while (v && start <= fragment.size()) {
    const size_t slash = std::min(fragment.find('/', start), fragment.size());
    std::string token = unescape_token(std::string_view(fragment).substr(start, slash - start));
    const JsonValue* next = nullptr;
    if (v->kind == Kind::kObject) {
      next = v->find(token);
      if (!next && start == 1 && token == "$defs") next = v->find("definitions");  // Confluent's bridge
    } else if (v->kind == Kind::kArray) {
      size_t i = 0;
      const auto r = std::from_chars(token.data(), token.data() + token.size(), i);
      if (r.ec == std::errc() && r.ptr == token.data() + token.size() && i < v->array.size()) next = &v->array[i];
    }
    if (!next) missing = at + ": key [" + token + "] not found";  // everit's words
    at += "/" + escape_token(token);
    start = slash + 1;
    v = next;
  }
  return v;
}

Expected<std::unique_ptr<LoadedSchema>, std::string> load_schema(std::unique_ptr<JsonValue> document,
                                                                 const SchemaSource& source) {
  auto out = std::make_unique<LoadedSchema>();
  const JsonValue* schema = document->kind == Kind::kObject ? document->find("$schema") : nullptr;
  if (schema && schema->kind == Kind::kString) out->draft = draft_from_url(schema->string).value_or(Draft::k7);
  out->documents.push_back(SchemaDocument{"", source.text, std::move(document)});
  for (const auto& r : source.resolved) out->documents.push_back(SchemaDocument{r.name, r.text, nullptr});
  try {
    if (schema && schema->kind != Kind::kString) Loader::expected(Where{0, "#/$schema"}, *schema, "String");
    Loader loader(*out);
    out->root = loader.load_document(0);
  } catch (const LoadFailure& f) {
    return unexpected(f.message);
  }
  return out;
}

}  // namespace skiff::schema::json
