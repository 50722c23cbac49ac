#include "schema/json/schema_diff.h"

#include "schema/json/diff_internal.h"

namespace skiff::schema::json {

DiffContext DiffContext::sub() const {
  DiffContext c(shared_);
  c.path_ = path_;
  return c;
}

std::string DiffContext::path() const {
  std::string p = "#/";
  for (size_t i = 0; i < path_.size(); ++i) {
    if (i > 0) p += '/';
    p += path_[i];
  }
  return p;
}

void DiffContext::add(DiffType t) { diffs_.push_back(Difference{t, path()}); }

void DiffContext::add(const std::string& attribute, DiffType t) {
  Scope s(*this, attribute);
  add(t);
}

void DiffContext::add_all(const std::vector<Difference>& diffs) {
  diffs_.insert(diffs_.end(), diffs.begin(), diffs.end());
}

void DiffContext::add_rebased(const std::vector<Difference>& relative) {
  if (path_.empty()) return add_all(relative);
  const std::string prefix = path();
  for (const auto& d : relative)
    diffs_.push_back(Difference{d.type, d.path.size() <= 2 ? prefix : prefix + "/" + d.path.substr(2)});
}

bool DiffContext::compatible() const {
  for (const auto& d : diffs_)
    if (!is_compatible_change(d.type, shared_.policy)) return false;
  return true;
}

std::vector<Difference> DiffContext::memoized(const Node* original, const Node* update,
                                              const std::function<void(DiffContext&)>& compare) {
  const NodePair key{original, update};
  if (auto it = shared_.memo.find(key); it != shared_.memo.end()) return it->second;
  if (!shared_.in_progress.insert(key).second) {  // a cycle: known incompatible, or assumed compatible
    if (auto it = shared_.seed.find(key); it != shared_.seed.end()) return it->second;
    shared_.optimism_used = true;
    return {};
  }
  DiffContext fresh(shared_);
  compare(fresh);
  shared_.in_progress.erase(key);
  return shared_.memo.emplace(key, fresh.diffs_).first->second;
}

namespace {

bool same_class(const Node* a, const Node* b) { return a->kind == b->kind; }

const Node* unwrap(const Node* n) { return n->kind == NodeKind::kReference && n->referred ? n->referred : n; }

bool text_equal(const JsonValue* a, const JsonValue* b) {
  if (!a || !b) return a == b;
  return json_equal(*a, *b);
}

// A combined schema on one side only: a singleton union, an anyOf/oneOf the
// writer's schema fits into, or an allOf one of whose parts fits. True when
// settled.
bool compare_one_sided_combined(DiffContext& ctx, const Node* original, const Node* update) {
  const bool oc = original->kind == NodeKind::kCombined, uc = update->kind == NodeKind::kCombined;
  if (oc == uc) return false;
  const Node* combined = uc ? update : original;
  auto try_with = [&](const Node* part, DiffType extra, bool add_extra) {
    DiffContext sub = ctx.sub();
    uc ? compare_nodes(sub, original, part) : compare_nodes(sub, part, update);
    if (!sub.compatible()) return false;
    ctx.add_all(sub.diffs());
    if (add_extra) ctx.add(extra);
    return true;
  };
  if (combined->subschemas.size() == 1) return try_with(combined->subschemas.front(), DiffType::TYPE_CHANGED, false);
  const bool sum = combined->criterion != Criterion::kAllOf;
  if (uc && sum) {
    for (const Node* part : combined->subschemas)
      if (try_with(part, DiffType::SUM_TYPE_EXTENDED, true)) return true;
  } else if (oc && !sum) {
    for (const Node* part : combined->subschemas)
      if (try_with(part, DiffType::PRODUCT_TYPE_NARROWED, true)) return true;
  }
  return false;
}

void compare_common(DiffContext& ctx, const Node* original, const Node* update) {
  if (original->id != update->id) ctx.add(DiffType::ID_CHANGED);
  if (original->title != update->title) ctx.add(DiffType::TITLE_CHANGED);
  if (original->description != update->description) ctx.add(DiffType::DESCRIPTION_CHANGED);
  if (!text_equal(original->default_value, update->default_value)) ctx.add(DiffType::DEFAULT_CHANGED);
}

void compare_types(DiffContext& ctx, const Node* original, const Node* update) {
  if (compare_one_sided_combined(ctx, original, update)) return;
  if (!same_class(original, update)) {
    if (original->kind == NodeKind::kFalse || is_empty_schema(update)) return;
    if (original->connect_type == "bytes" && update->connect_type == "bytes") return;
    return ctx.add(DiffType::TYPE_CHANGED);
  }
  compare_common(ctx, original, update);
  switch (original->kind) {
    case NodeKind::kString:
      return compare_string(ctx, original->string, update->string);
    case NodeKind::kNumber:
      return compare_number(ctx, original->number, update->number);
    case NodeKind::kConst:
      if (!text_equal(original->const_value, update->const_value)) ctx.add("const", DiffType::ENUM_ARRAY_CHANGED);
      return;
    case NodeKind::kEnum:
      return compare_enum(ctx, *original, *update);
    case NodeKind::kCombined:
      return compare_combined(ctx, *original, *update);
    case NodeKind::kNot:
      return compare_not(ctx, *original, *update);
    case NodeKind::kObject:
      return compare_object(ctx, *original, *update);
    case NodeKind::kArray:
      return compare_array(ctx, *original, *update);
    default:
      return;
  }
}

}  // namespace

void compare_nodes(DiffContext& ctx, const Node* original, const Node* update) {
  if (!original && !update) return;
  if (!original) return ctx.add(DiffType::SCHEMA_ADDED);
  if (!update) return ctx.add(DiffType::SCHEMA_REMOVED);
  const Node* o = unwrap(original);
  const Node* u = unwrap(update);
  auto& shared = ctx.shared();
  if (shared.compared >= kMaxDiffPairs) return ctx.add(DiffType::TYPE_CHANGED);  // an over-large check
  if (shared.depth >= kMaxDiffDepth) {  // bounded stack: deeper, only identical JSON is compatible
    if (!o->source || !u->source || !json_equal(*o->source, *u->source)) ctx.add(DiffType::TYPE_CHANGED);
    return;
  }
  ++shared.depth;
  ++shared.compared;
  auto diffs = ctx.memoized(o, u, [&](DiffContext& sub) { compare_types(sub, o, u); });
  --shared.depth;
  ctx.add_rebased(diffs);
}

std::vector<Difference> compare_schemas(const Node* original, const Node* update, CompatibilityPolicy policy) {
  std::map<NodePair, std::vector<Difference>> seed;
  for (int pass = 0;; ++pass) {
    DiffShared shared;
    shared.policy = policy;
    shared.seed = seed;
    DiffContext ctx(shared);
    compare_nodes(ctx, original, update);
    std::map<NodePair, std::vector<Difference>> incompatible;
    for (const auto& [pair, diffs] : shared.memo) {
      DiffContext probe(shared);
      probe.add_all(diffs);
      if (!probe.compatible()) incompatible.emplace(pair, diffs);
    }
    auto same_keys = [&] {
      if (incompatible.size() != seed.size()) return false;
      for (const auto& [k, v] : incompatible)
        if (!seed.count(k)) return false;
      return true;
    };
    if (!shared.optimism_used || same_keys() || pass >= 32) return ctx.diffs();
    seed = std::move(incompatible);
  }
}

std::vector<std::string> incompatible_messages(const Node* original, const Node* update, CompatibilityPolicy policy) {
  std::vector<std::string> out;
  for (const auto& d : compare_schemas(original, update, policy))
    if (!is_compatible_change(d.type, policy)) out.push_back(d.message());
  return out;
}

}  // namespace skiff::schema::json
