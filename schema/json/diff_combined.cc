// allOf/anyOf/oneOf against allOf/anyOf/oneOf (Confluent's
// CombinedSchemaDiff): the criterion change, the number of (distinct)
// subschemas, then a maximum matching between the old and new subschemas
// along the pairs that are compatible; a matching that leaves a subschema
// of the smaller side unmatched is COMBINED_TYPE_SUBSCHEMAS_CHANGED.
#include <unordered_set>

#include "schema/json/diff_internal.h"
#include "schema/json/jackson_text.h"

namespace skiff::schema::json {

namespace {

using T = DiffType;

// The subschemas, repeats dropped (Confluent collects them in a
// LinkedHashSet of schemas equal by their JSON). The nodes a list of types
// or a synthetic allOf makes share their object, so the kind counts too.
std::vector<const Node*> distinct(const std::vector<const Node*>& subschemas) {
  std::vector<const Node*> out;
  std::unordered_set<std::string> seen;
  for (const Node* n : subschemas) {
    std::string key = std::to_string(static_cast<int>(n->kind)) + (n->number.requires_integer ? "i" : "") + ":";
    key += n->source ? jackson_compact(*n->source, true) : std::to_string(reinterpret_cast<uintptr_t>(n));
    if (seen.insert(key).second) out.push_back(n);
  }
  return out;
}

bool singleton(const Node& n) { return n.subschemas.size() == 1; }

std::optional<T> criterion_change(const Node& o, const Node& u) {
  if (o.criterion == u.criterion) return std::nullopt;
  if (u.criterion == Criterion::kAnyOf || (singleton(o) && singleton(u)) ||
      (singleton(o) && u.criterion == Criterion::kOneOf) || (singleton(u) && o.criterion == Criterion::kAllOf))
    return T::COMBINED_TYPE_EXTENDED;
  return T::COMBINED_TYPE_CHANGED;
}

// Kuhn's augmenting paths over edges[i] (the new subschemas old i fits).
class Matching {
 public:
  Matching(const std::vector<std::vector<size_t>>& edges, size_t right) : edges_(edges), owner_(right, kNone) {}

  std::vector<size_t> solve() {  // for each new subschema, its old one (or kNone)
    for (size_t i = 0; i < edges_.size(); ++i) {
      visited_.assign(owner_.size(), false);
      augment(i);
    }
    return owner_;
  }
  static constexpr size_t kNone = SIZE_MAX;

 private:
  bool augment(size_t i) {
    for (size_t j : edges_[i]) {
      if (visited_[j]) continue;
      visited_[j] = true;
      if (owner_[j] == kNone || augment(owner_[j])) {
        owner_[j] = i;
        return true;
      }
    }
    return false;
  }
  const std::vector<std::vector<size_t>>& edges_;
  std::vector<size_t> owner_;
  std::vector<bool> visited_;
};

}  // namespace

void compare_combined(DiffContext& ctx, const Node& original, const Node& update) {
  const auto change = criterion_change(original, update);
  if (change) ctx.add(*change);
  if (change == T::COMBINED_TYPE_CHANGED) return;
  const auto o = distinct(original.subschemas), u = distinct(update.subschemas);
  if (o.size() < u.size())
    ctx.add(update.criterion == Criterion::kAllOf ? T::PRODUCT_TYPE_EXTENDED : T::SUM_TYPE_EXTENDED);
  if (o.size() > u.size())
    ctx.add(original.criterion == Criterion::kAllOf ? T::PRODUCT_TYPE_NARROWED : T::SUM_TYPE_NARROWED);
  std::vector<std::vector<size_t>> edges(o.size());
  std::map<std::pair<size_t, size_t>, std::vector<Difference>> edge_diffs;
  for (size_t i = 0; i < o.size(); ++i) {
    DiffContext::Scope s(ctx, std::string(criterion_name(original.criterion)) + "/" + std::to_string(i));
    for (size_t j = 0; j < u.size(); ++j) {
      DiffContext sub = ctx.sub();
      compare_nodes(sub, o[i], u[j]);
      if (!sub.compatible()) continue;
      edges[i].push_back(j);
      edge_diffs.emplace(std::make_pair(i, j), sub.diffs());
    }
  }
  const auto owner = Matching(edges, u.size()).solve();
  std::vector<size_t> partner(o.size(), Matching::kNone);
  for (size_t j = 0; j < owner.size(); ++j)
    if (owner[j] != Matching::kNone) partner[owner[j]] = j;
  size_t matched = 0;
  for (size_t i = 0; i < o.size(); ++i) {
    if (partner[i] == Matching::kNone) continue;
    ++matched;
    ctx.add_all(edge_diffs[{i, partner[i]}]);
  }
  if (matched < std::min(o.size(), u.size())) ctx.add(T::COMBINED_TYPE_SUBSCHEMAS_CHANGED);
}

}  // namespace skiff::schema::json
