// Java's iteration orders, reproduced where Confluent's JSON Schema diff
// walks a java.util.HashMap or HashSet of property names (so that the
// differences it reports come out in the order Confluent reports them).
// A HashMap iterates bucket by bucket (bucket = spread(String.hashCode()) &
// (capacity - 1)), and within a bucket in insertion order; its capacity
// doubles whenever the size passes 3/4 of it. Treeified buckets (eight
// names colliding in one bucket) are not reproduced.
// Threads: pure functions.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace skiff::schema::json {

// java.lang.String.hashCode() of the UTF-16 form of `utf8`.
int32_t java_string_hash(std::string_view utf8);

// Capacities the Java collections start with: `new HashMap<>()` (16),
// `new HashSet<>(collectionOfSize(n))` and `new HashMap<>(mapOfSize(n))`.
size_t java_default_capacity();
size_t java_capacity_for_collection(size_t n);
size_t java_capacity_for_map_copy(size_t n);

// The iteration order of a HashMap/HashSet starting at `capacity` into
// which `keys` were inserted in this order (repeats ignored).
std::vector<std::string> java_hash_order(const std::vector<std::string>& keys, size_t capacity);

}  // namespace skiff::schema::json
