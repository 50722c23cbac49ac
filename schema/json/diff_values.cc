// Numbers, strings, enums and not (Confluent's NumberSchemaDiff,
// StringSchemaDiff, EnumSchemaDiff, NotSchemaDiff).
#include <charconv>
#include <cmath>
#include <unordered_set>

#include "schema/json/diff_internal.h"
#include "schema/json/jackson_text.h"

namespace skiff::schema::json {

namespace {

using T = DiffType;

std::optional<double> value_of(const std::optional<Number>& n) {
  if (!n) return std::nullopt;
  return n->value;
}

// An exact decimal: digits * 10^-scale, while it fits 38 digits.
struct Exact {
  __int128 digits = 0;
  int scale = 0;
};

std::optional<Exact> exact(const std::string& lexeme) {
  const auto text = big_decimal_text(lexeme);
  if (!text) return std::nullopt;
  Exact e;
  std::string t = *text;
  int exp = 0;
  if (const size_t at = t.find('E'); at != std::string::npos) {
    std::from_chars(t.data() + at + (t[at + 1] == '+' ? 2 : 1), t.data() + t.size(), exp);
    t.resize(at);
  }
  if (const size_t dot = t.find('.'); dot != std::string::npos) {
    e.scale = static_cast<int>(t.size() - dot - 1);
    t.erase(dot, 1);
  }
  e.scale -= exp;
  const bool negative = !t.empty() && t[0] == '-';
  if (negative) t.erase(0, 1);
  if (t.size() > 36 || e.scale > 36 || e.scale < -36) return std::nullopt;
  for (const char c : t) e.digits = e.digits * 10 + (c - '0');
  if (negative) e.digits = -e.digits;
  return e;
}

// BigDecimal a.remainder(b) == 0 (b != 0).
bool divides(const Number& b, const Number& a) {
  const auto ea = exact(a.text), eb = exact(b.text);
  if (!ea || !eb) return b.value != 0 && std::fmod(a.value, b.value) == 0;
  if (eb->digits == 0) return false;
  __int128 x = ea->digits, y = eb->digits;
  for (int s = ea->scale; s < eb->scale; ++s) x *= 10;
  for (int s = eb->scale; s < ea->scale; ++s) y *= 10;
  return x % y == 0;
}

void compare_multiple_of(DiffContext& ctx, const std::optional<Number>& o, const std::optional<Number>& u) {
  if (!o && !u) return;
  if (o && u && o->value == u->value && divides(*o, *u) && divides(*u, *o)) return;
  if (!o) return ctx.add("multipleOf", T::MULTIPLE_OF_ADDED);
  if (!u) return ctx.add("multipleOf", T::MULTIPLE_OF_REMOVED);
  if (o->value != 0 && divides(*o, *u)) return ctx.add("multipleOf", T::MULTIPLE_OF_EXPANDED);
  if (u->value != 0 && divides(*u, *o)) return ctx.add("multipleOf", T::MULTIPLE_OF_REDUCED);
  ctx.add("multipleOf", T::MULTIPLE_OF_CHANGED);
}

// Confluent decides a smaller exclusiveMaximum against the new schema's
// maximum (not its exclusiveMaximum); without a maximum it is a decrease.
void compare_exclusive_maximum(DiffContext& ctx, const NumberFacet& o, const NumberFacet& u) {
  const auto was = value_of(o.exclusive_maximum), is = value_of(u.exclusive_maximum);
  if (!was && !is) return;
  if (!was) return ctx.add("exclusiveMaximum", T::EXCLUSIVE_MAXIMUM_ADDED);
  if (!is) return ctx.add("exclusiveMaximum", T::EXCLUSIVE_MAXIMUM_REMOVED);
  if (*was < *is) return ctx.add("exclusiveMaximum", T::EXCLUSIVE_MAXIMUM_INCREASED);
  if (*was > *is && (!u.maximum || *was > u.maximum->value))
    ctx.add("exclusiveMaximum", T::EXCLUSIVE_MAXIMUM_DECREASED);
}

}  // namespace

void compare_number(DiffContext& ctx, const NumberFacet& o, const NumberFacet& u) {
  compare_bound(ctx, "maximum", value_of(o.maximum), value_of(u.maximum), T::MAXIMUM_ADDED, T::MAXIMUM_REMOVED,
                T::MAXIMUM_INCREASED, T::MAXIMUM_DECREASED);
  compare_bound(ctx, "minimum", value_of(o.minimum), value_of(u.minimum), T::MINIMUM_ADDED, T::MINIMUM_REMOVED,
                T::MINIMUM_INCREASED, T::MINIMUM_DECREASED);
  compare_exclusive_maximum(ctx, o, u);
  compare_bound(ctx, "exclusiveMinimum", value_of(o.exclusive_minimum), value_of(u.exclusive_minimum),
                T::EXCLUSIVE_MINIMUM_ADDED, T::EXCLUSIVE_MINIMUM_REMOVED, T::EXCLUSIVE_MINIMUM_INCREASED,
                T::EXCLUSIVE_MINIMUM_DECREASED);
  compare_multiple_of(ctx, o.multiple_of, u.multiple_of);
  if (o.requires_integer != u.requires_integer) ctx.add(o.requires_integer ? T::TYPE_EXTENDED : T::TYPE_NARROWED);
}

void compare_string(DiffContext& ctx, const StringFacet& o, const StringFacet& u) {
  compare_bound(ctx, "maxLength", o.max_length, u.max_length, T::MAX_LENGTH_ADDED, T::MAX_LENGTH_REMOVED,
                T::MAX_LENGTH_INCREASED, T::MAX_LENGTH_DECREASED);
  compare_bound(ctx, "minLength", o.min_length, u.min_length, T::MIN_LENGTH_ADDED, T::MIN_LENGTH_REMOVED,
                T::MIN_LENGTH_INCREASED, T::MIN_LENGTH_DECREASED);
  if (!o.pattern && u.pattern)
    ctx.add("pattern", T::PATTERN_ADDED);
  else if (o.pattern && !u.pattern)
    ctx.add("pattern", T::PATTERN_REMOVED);
  else if (o.pattern && *o.pattern != *u.pattern)
    ctx.add("pattern", T::PATTERN_CHANGED);
}

namespace {

// Java equality of the values everit keeps: sorted canonical text.
std::vector<std::string> value_keys(const std::vector<const JsonValue*>& values) {
  std::vector<std::string> out;
  out.reserve(values.size());
  for (const JsonValue* v : values) out.push_back(jackson_compact(*v, true));
  return out;
}

bool contains_all_keys(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  const std::unordered_set<std::string> in_a(a.begin(), a.end());
  for (const auto& x : b)
    if (!in_a.count(x)) return false;
  return true;
}

}  // namespace

void compare_enum(DiffContext& ctx, const Node& original, const Node& update) {
  const auto o = value_keys(original.enum_values), u = value_keys(update.enum_values);
  if (o == u) return;
  if (contains_all_keys(u, o))
    ctx.add("enum", T::ENUM_ARRAY_EXTENDED);
  else if (contains_all_keys(o, u))
    ctx.add("enum", T::ENUM_ARRAY_NARROWED);
  else
    ctx.add("enum", T::ENUM_ARRAY_CHANGED);
}

void compare_not(DiffContext& ctx, const Node& original, const Node& update) {
  DiffContext::Scope s(ctx, "not");
  DiffContext sub = ctx.sub();
  compare_nodes(sub, update.not_schema, original.not_schema);  // reversed: what is excluded
  ctx.add(sub.compatible() ? T::NOT_TYPE_NARROWED : T::NOT_TYPE_EXTENDED);
}

}  // namespace skiff::schema::json
