// Internal to schema/json/: the comparison context the diff functions share
// (Confluent's diff.Context): the current JSON path, the differences found
// under it, and the memo of compared node pairs shared by a whole check.
// Threads: one check per thread.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <regex>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "schema/json/difference.h"
#include "schema/json/schema_model.h"

namespace skiff::schema::json {

using NodePair = std::pair<const Node*, const Node*>;

struct DiffShared {
  CompatibilityPolicy policy = CompatibilityPolicy::kStrict;
  std::map<NodePair, std::vector<Difference>> memo;
  std::set<NodePair> in_progress;
  std::map<NodePair, std::vector<Difference>> seed;  // pairs known incompatible from an earlier pass
  bool optimism_used = false;
  int depth = 0;
  size_t compared = 0;  // pairs compared in this pass, against kMaxDiffPairs
  std::map<std::string, std::shared_ptr<const std::regex>> patterns;  // compiled once (null: not compilable)
};

class DiffContext {
 public:
  explicit DiffContext(DiffShared& shared) : shared_(shared) {}
  DiffContext sub() const;  // same path, no differences yet

  void add(DiffType t);
  void add(const std::string& attribute, DiffType t);
  void add_all(const std::vector<Difference>& diffs);
  void add_rebased(const std::vector<Difference>& relative);
  bool compatible() const;
  const std::vector<Difference>& diffs() const { return diffs_; }
  DiffShared& shared() { return shared_; }
  std::vector<Difference> memoized(const Node* original, const Node* update,
                                   const std::function<void(DiffContext&)>& compare);

  class Scope {
   public:
    Scope(DiffContext& ctx, std::string segment) : ctx_(ctx) { ctx_.path_.push_back(std::move(segment)); }
    ~Scope() { ctx_.path_.pop_back(); }
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;

   private:
    DiffContext& ctx_;
  };

 private:
  std::string path() const;

  DiffShared& shared_;
  std::vector<std::string> path_;
  std::vector<Difference> diffs_;
};

// One pair of schemas at the context's path (SchemaDiff.compare).
void compare_nodes(DiffContext& ctx, const Node* original, const Node* update);

// Per kind, both nodes of that kind.
void compare_object(DiffContext& ctx, const Node& original, const Node& update);
void compare_array(DiffContext& ctx, const Node& original, const Node& update);
void compare_combined(DiffContext& ctx, const Node& original, const Node& update);
void compare_number(DiffContext& ctx, const NumberFacet& original, const NumberFacet& update);
void compare_string(DiffContext& ctx, const StringFacet& original, const StringFacet& update);
void compare_enum(DiffContext& ctx, const Node& original, const Node& update);
void compare_not(DiffContext& ctx, const Node& original, const Node& update);

// The everit classes' identity: TrueSchema is an EmptySchema.
inline bool is_empty_schema(const Node* n) { return n->kind == NodeKind::kEmpty || n->kind == NodeKind::kTrue; }

// Compares two optional bounds the way every *_ADDED/REMOVED/INCREASED/
// DECREASED family does; nothing when equal.
template <class V>
void compare_bound(DiffContext& ctx, const char* keyword, const std::optional<V>& original,
                   const std::optional<V>& update, DiffType added, DiffType removed, DiffType increased,
                   DiffType decreased) {
  if (!original && !update) return;
  if (!original) return ctx.add(keyword, added);
  if (!update) return ctx.add(keyword, removed);
  if (*original < *update) return ctx.add(keyword, increased);
  if (*update < *original) return ctx.add(keyword, decreased);
}

}  // namespace skiff::schema::json

namespace skiff::schema::json {

void compare_unevaluated(DiffContext& ctx, const char* keyword, const Node* original, const Node* update,
                         DiffType added, DiffType removed, DiffType extended, DiffType narrowed);

}  // namespace skiff::schema::json
