#include "schema/json/json_validate.h"

#include <re2/re2.h>

#include <cmath>
#include <map>
#include <memory>
#include <mutex>

#include "common/utf8.h"
#include "schema/json/json_formats.h"

namespace skiff::schema::json {

namespace {

using VKind = JsonValue::Kind;

const char* java_kind(const JsonValue& v) {
  switch (v.kind) {
    case VKind::kNull:
      return "Null";
    case VKind::kBool:
      return "Boolean";
    case VKind::kNumber:
      return v.number_text.find_first_of(".eE") == std::string::npos ? "Integer" : "BigDecimal";
    case VKind::kString:
      return "String";
    case VKind::kArray:
      return "JSONArray";
    case VKind::kObject:
      return "JSONObject";
  }
  return "Object";
}

size_t code_points(const std::string& s) {
  size_t n = 0;
  for (char c : s) n += (static_cast<unsigned char>(c) & 0xc0) != 0x80;
  return n;
}

// An integer as everit sees one: Jackson read it as an Integer, a Long or
// a BigInteger (anything with a fraction or an exponent is a BigDecimal).
bool is_java_integer(const JsonValue& v) { return v.number_text.find_first_of(".eE") == std::string::npos; }

// Equality as everit's ObjectComparator sees it: numbers by value (1.0 is
// 1), arrays in order, objects by their members.
bool same_value(const JsonValue& a, const JsonValue& b) {
  if (a.kind != b.kind) return false;
  switch (a.kind) {
    case VKind::kNumber:
      return a.number == b.number;
    case VKind::kArray:
      if (a.array.size() != b.array.size()) return false;
      for (size_t i = 0; i < a.array.size(); ++i)
        if (!same_value(a.array[i], b.array[i])) return false;
      return true;
    case VKind::kObject:
      if (a.members.size() != b.members.size()) return false;
      for (const JsonMember& m : a.members) {
        const JsonValue* other = b.find(m.name);
        if (other == nullptr || !same_value(*a.find(m.name), *other)) return false;
      }
      return true;
    default:
      return json_equal(a, b);
  }
}

std::string pointer_token(const std::string& s) {
  std::string out;
  for (char c : s) out += c == '~' ? "~0" : c == '/' ? "~1" : std::string(1, c);
  return out;
}

class Validator {
 public:
  Validator(const ValidateLimits& limits, PatternCache& patterns) : limits_(limits), patterns_(patterns) {}

  // Whether v is valid against n; failures are recorded under `at`.
  bool check(const Node* n, const JsonValue& v, const std::string& at, int depth) {
    if (!within_limits(depth)) return false;
    switch (n->kind) {
      case NodeKind::kEmpty:
      case NodeKind::kTrue:
        return true;
      case NodeKind::kFalse:
        return fail(at, "false schema always fails");
      case NodeKind::kBoolean:
        return v.kind == VKind::kBool || type_fail(at, "Boolean", v);
      case NodeKind::kNull:
        return v.kind == VKind::kNull || type_fail(at, "Null", v);
      case NodeKind::kNumber:
        return number(n, v, at);
      case NodeKind::kString:
        return string(n, v, at);
      case NodeKind::kObject:
        return object(n, v, at, depth);
      case NodeKind::kArray:
        return array(n, v, at, depth);
      case NodeKind::kEnum:
        return enumeration(n, v, at);
      case NodeKind::kConst:
        return constant(n, v, at);
      case NodeKind::kCombined:
        return combined(n, v, at, depth);
      case NodeKind::kNot:
        return not_schema(n, v, at, depth);
      case NodeKind::kReference:
        return reference(n, v, at, depth);
      case NodeKind::kConditional:
        return conditional(n, v, at, depth);
    }
    return false;
  }

  bool constant(const Node* n, const JsonValue& v, const std::string& at) {
    return same_value(*n->const_value, v) || fail(at, "value does not match the const");
  }

  bool reference(const Node* n, const JsonValue& v, const std::string& at, int depth) {
    if (n->referred == nullptr) return fail(at, "unresolved $ref " + n->ref);
    return check(n->referred, v, at, depth + 1);
  }

  bool within_limits(int depth) {
    if (++steps_ > limits_.max_steps)
      return abort("validation takes more than " + std::to_string(limits_.max_steps) + " steps");
    if (depth > limits_.max_depth)
      return abort("the schema nests deeper than " + std::to_string(limits_.max_depth) + " for this value");
    return !aborted_;
  }

  std::string message() const {
    std::string out;
    for (size_t i = 0; i < failures_.size() && i < 5; ++i) out += (i ? "; " : "") + failures_[i];
    if (failures_.size() > 5) out += "; and " + std::to_string(failures_.size() - 5) + " more";
    return out;
  }

 private:
  bool abort(const std::string& why) {
    if (!aborted_) failures_.assign(1, "#: " + why);
    aborted_ = true;
    return false;
  }

  bool fail(const std::string& at, const std::string& why) {
    if (!aborted_ && mute_ == 0 && failures_.size() < 64)
      failures_.push_back((at.empty() ? "#" : "#" + at) + ": " + why);
    return false;
  }

  bool type_fail(const std::string& at, const char* expected, const JsonValue& v) {
    return fail(at, std::string("expected type: ") + expected + ", found: " + java_kind(v));
  }

  // Runs f without recording failures (a branch of anyOf/oneOf/not/if).
  template <class F>
  bool quietly(F f) {
    ++mute_;
    const bool ok = f();
    --mute_;
    return ok;
  }

  bool number(const Node* n, const JsonValue& v, const std::string& at);
  bool limits(const NumberFacet& f, double x, const std::string& at);
  bool string(const Node* n, const JsonValue& v, const std::string& at);
  bool object(const Node* n, const JsonValue& v, const std::string& at, int depth);
  bool object_keys(const ObjectFacet& f, const JsonValue& v, const std::string& at, int depth);
  bool object_dependencies(const ObjectFacet& f, const JsonValue& v, const std::string& at, int depth);
  bool array(const Node* n, const JsonValue& v, const std::string& at, int depth);
  bool array_items(const ArrayFacet& f, const JsonValue& v, const std::string& at, int depth);
  bool enumeration(const Node* n, const JsonValue& v, const std::string& at);
  bool combined(const Node* n, const JsonValue& v, const std::string& at, int depth);
  bool not_schema(const Node* n, const JsonValue& v, const std::string& at, int depth);
  bool conditional(const Node* n, const JsonValue& v, const std::string& at, int depth);
  const RE2* regex(const std::string& pattern);

  const ValidateLimits& limits_;
  std::vector<std::string> failures_;
  size_t steps_ = 0;
  int mute_ = 0;
  bool aborted_ = false;
  PatternCache& patterns_;
  std::map<std::string, std::unique_ptr<RE2>> local_;  // patterns compiled past the cache's bound
};

bool Validator::number(const Node* n, const JsonValue& v, const std::string& at) {
  const NumberFacet& f = n->number;
  if (v.kind != VKind::kNumber) return !n->typed || type_fail(at, f.requires_integer ? "Integer" : "Number", v);
  if (f.requires_integer && !is_java_integer(v)) return type_fail(at, "Integer", v);
  return limits(f, v.number, at);
}

bool Validator::limits(const NumberFacet& f, double x, const std::string& at) {
  bool ok = true;
  if (f.minimum && (f.exclusive_minimum_flag ? x <= f.minimum->value : x < f.minimum->value))
    ok = fail(at, std::string(f.exclusive_minimum_flag ? "number is not higher than " : "number is lower than ") +
                      f.minimum->text);
  if (f.maximum && (f.exclusive_maximum_flag ? x >= f.maximum->value : x > f.maximum->value))
    ok = fail(at, std::string(f.exclusive_maximum_flag ? "number is not lower than " : "number is higher than ") +
                      f.maximum->text);
  if (f.exclusive_minimum && x <= f.exclusive_minimum->value)
    ok = fail(at, "number is not higher than " + f.exclusive_minimum->text);
  if (f.exclusive_maximum && x >= f.exclusive_maximum->value)
    ok = fail(at, "number is not lower than " + f.exclusive_maximum->text);
  if (f.multiple_of && f.multiple_of->value != 0) {
    const double q = x / f.multiple_of->value;
    if (!std::isfinite(q) || std::fabs(q - std::round(q)) > 1e-9 * std::max(1.0, std::fabs(q)))
      ok = fail(at, "number is not a multiple of " + f.multiple_of->text);
  }
  return ok;
}

const RE2* Validator::regex(const std::string& pattern) {
  if (auto it = local_.find(pattern); it != local_.end()) return it->second->ok() ? it->second.get() : nullptr;
  std::unique_ptr<RE2> scratch;
  const RE2* re = patterns_.get(pattern, scratch);
  if (scratch) local_.emplace(pattern, std::move(scratch));
  return re;
}

bool Validator::string(const Node* n, const JsonValue& v, const std::string& at) {
  const StringFacet& f = n->string;
  if (v.kind != VKind::kString) return !n->typed || type_fail(at, "String", v);
  bool ok = true;
  const auto length = static_cast<int64_t>(code_points(v.string));
  if (f.min_length && length < *f.min_length)
    ok = fail(at, "expected minLength: " + std::to_string(*f.min_length) + ", actual: " + std::to_string(length));
  if (f.max_length && length > *f.max_length)
    ok = fail(at, "expected maxLength: " + std::to_string(*f.max_length) + ", actual: " + std::to_string(length));
  if (f.pattern) {
    const RE2* re = regex(*f.pattern);
    if (re == nullptr) return abort("the pattern \"" + *f.pattern + "\" is not supported");
    if (!RE2::PartialMatch(v.string, *re)) ok = fail(at, "string does not match pattern " + *f.pattern);
  }
  if (f.format)
    if (auto why = format_failure(*f.format, v.string)) ok = fail(at, *why);
  return ok;
}

bool Validator::object(const Node* n, const JsonValue& v, const std::string& at, int depth) {
  const ObjectFacet& f = n->object;
  if (v.kind != VKind::kObject) return !n->typed || type_fail(at, "JSONObject", v);
  const JsonValue* subject = &v;
  bool ok = true;
  for (const std::string& name : f.required)
    if (subject->find(name) == nullptr) ok = fail(at, "required key [" + name + "] not found");
  const auto count = static_cast<int64_t>(subject->members.size());
  if (f.min_properties && count < *f.min_properties)
    ok = fail(at, "minimum size: [" + std::to_string(*f.min_properties) + "], found: [" + std::to_string(count) + "]");
  if (f.max_properties && count > *f.max_properties)
    ok = fail(at, "maximum size: [" + std::to_string(*f.max_properties) + "], found: [" + std::to_string(count) + "]");
  ok = object_keys(f, *subject, at, depth) && ok;
  return object_dependencies(f, *subject, at, depth) && ok;
}

bool Validator::object_keys(const ObjectFacet& f, const JsonValue& v, const std::string& at, int depth) {
  bool ok = true;
  for (const JsonMember& m : v.members) {
    const std::string here = at + "/" + pointer_token(m.name);
    bool matched = false;
    if (const Node* p = f.property(m.name)) matched = true, ok = check(p, *v.find(m.name), here, depth + 1) && ok;
    for (const auto& [pattern, schema] : f.pattern_properties) {
      const RE2* re = regex(pattern);
      if (re == nullptr) return abort("the pattern \"" + pattern + "\" is not supported");
      if (RE2::PartialMatch(m.name, *re)) matched = true, ok = check(schema, m.value, here, depth + 1) && ok;
    }
    if (f.property_names) {
      JsonValue name;
      name.kind = VKind::kString;
      name.string = m.name;
      ok = check(f.property_names, name, here, depth + 1) && ok;
    }
    if (matched) continue;
    if (!f.additional_properties) ok = fail(at, "extraneous key [" + m.name + "] is not permitted");
    if (f.additional_schema) ok = check(f.additional_schema, m.value, here, depth + 1) && ok;
  }
  return ok;
}

bool Validator::object_dependencies(const ObjectFacet& f, const JsonValue& v, const std::string& at, int depth) {
  bool ok = true;
  for (const auto& [key, names] : f.property_dependencies) {
    if (v.find(key) == nullptr) continue;
    for (const std::string& name : names)
      if (v.find(name) == nullptr) ok = fail(at, "property [" + name + "] is required");
  }
  for (const auto& [key, schema] : f.schema_dependencies)
    if (v.find(key) != nullptr) ok = check(schema, v, at, depth + 1) && ok;
  return ok;
}

bool Validator::array(const Node* n, const JsonValue& v, const std::string& at, int depth) {
  const ArrayFacet& f = n->array;
  if (v.kind != VKind::kArray) return !n->typed || type_fail(at, "JSONArray", v);
  bool ok = true;
  const auto count = static_cast<int64_t>(v.array.size());
  if (f.min_items && count < *f.min_items)
    ok = fail(at, "expected minimum item count: " + std::to_string(*f.min_items) + ", found: " + std::to_string(count));
  if (f.max_items && count > *f.max_items)
    ok = fail(at, "expected maximum item count: " + std::to_string(*f.max_items) + ", found: " + std::to_string(count));
  if (f.unique_items) {
    for (size_t i = 0; i < v.array.size() && ok; ++i) {
      if (++steps_ > limits_.max_steps)
        return abort("validation takes more than " + std::to_string(limits_.max_steps) + " steps");
      for (size_t j = 0; j < i; ++j) {
        steps_ += 1;
        if (same_value(v.array[i], v.array[j])) {
          ok = fail(at, "array items are not unique");
          break;
        }
      }
      if (steps_ > limits_.max_steps)
        return abort("validation takes more than " + std::to_string(limits_.max_steps) + " steps");
    }
  }
  return array_items(f, v, at, depth) && ok;
}

bool Validator::array_items(const ArrayFacet& f, const JsonValue& v, const std::string& at, int depth) {
  bool ok = true;
  for (size_t i = 0; i < v.array.size(); ++i) {
    const std::string here = at + "/" + std::to_string(i);
    if (f.all_items) {
      ok = check(f.all_items, v.array[i], here, depth + 1) && ok;
    } else if (i < f.item_schemas.size()) {
      ok = check(f.item_schemas[i], v.array[i], here, depth + 1) && ok;
    } else if (!f.item_schemas.empty() && !f.additional_items) {
      ok = fail(at, "expected: [" + std::to_string(f.item_schemas.size()) + "] array items, found: [" +
                        std::to_string(v.array.size()) + "]");
      break;
    } else if (!f.item_schemas.empty() && f.additional_schema) {
      ok = check(f.additional_schema, v.array[i], here, depth + 1) && ok;
    }
    if (aborted_) return false;
  }
  if (f.contains) {
    bool found = false;
    for (size_t i = 0; i < v.array.size() && !found && !aborted_; ++i)
      found = quietly([&] { return check(f.contains, v.array[i], at, depth + 1); });
    if (!found) ok = fail(at, "expected at least one array item to match 'contains' schema");
  }
  return ok;
}

bool Validator::enumeration(const Node* n, const JsonValue& v, const std::string& at) {
  for (const JsonValue* e : n->enum_values)
    if (same_value(*e, v)) return true;
  return fail(at, "value is not a valid enum value");
}

bool Validator::combined(const Node* n, const JsonValue& v, const std::string& at, int depth) {
  if (n->criterion == Criterion::kAllOf) {
    bool ok = true;
    for (const Node* s : n->subschemas) ok = check(s, v, at, depth + 1) && ok;
    return ok;
  }
  size_t matches = 0;
  for (const Node* s : n->subschemas) {
    if (quietly([&] { return check(s, v, at, depth + 1); })) ++matches;
    if (aborted_) return false;
    if (n->criterion == Criterion::kAnyOf && matches > 0) return true;
  }
  if (n->criterion == Criterion::kAnyOf)
    return fail(at, "no subschema matched out of the total " + std::to_string(n->subschemas.size()) + " subschemas");
  if (matches == 1) return true;
  return fail(at, std::to_string(matches) + " subschemas matched instead of one");
}

bool Validator::not_schema(const Node* n, const JsonValue& v, const std::string& at, int depth) {
  const bool matched = quietly([&] { return check(n->not_schema, v, at, depth + 1); });
  if (aborted_) return false;
  return !matched || fail(at, "subject must not be valid against schema");
}

bool Validator::conditional(const Node* n, const JsonValue& v, const std::string& at, int depth) {
  if (n->if_schema == nullptr) return true;
  const bool taken = quietly([&] { return check(n->if_schema, v, at, depth + 1); });
  if (aborted_) return false;
  const Node* next = taken ? n->then_schema : n->else_schema;
  return next == nullptr || check(next, v, at, depth + 1);
}

std::unique_ptr<RE2> compile(const std::string& pattern) {
  RE2::Options options;
  options.set_log_errors(false);
  options.set_max_mem(8 << 20);
  return std::make_unique<RE2>(pattern, options);
}

}  // namespace

PatternCache::PatternCache() = default;
PatternCache::~PatternCache() = default;

const RE2* PatternCache::get(const std::string& pattern, std::unique_ptr<RE2>& scratch) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = compiled_.find(pattern);
  if (it == compiled_.end()) {
    if (compiled_.size() >= kMaxPatterns) {
      scratch = compile(pattern);
      return scratch->ok() ? scratch.get() : nullptr;
    }
    it = compiled_.emplace(pattern, compile(pattern)).first;
  }
  return it->second->ok() ? it->second.get() : nullptr;
}

std::string validate_value(const LoadedSchema& schema, const JsonValue& value, PatternCache& patterns,
                           const ValidateLimits& limits) {
  Validator v(limits, patterns);
  if (schema.root == nullptr || v.check(schema.root, value, "", 0)) return {};
  return v.message();
}

}  // namespace skiff::schema::json
