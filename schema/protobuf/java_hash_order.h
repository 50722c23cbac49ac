// The iteration order of Java's `new HashSet<>(a)` followed by `addAll(b)`
// over names, which Confluent's SchemaDiff walks messages and enums in (and
// so orders its differences in): by bucket of String.hashCode() (spread as
// java.util.HashMap does) in the final table, then by insertion order.
//
// Threads: pure function.
#pragma once

#include <string>
#include <vector>

namespace skiff::schema::protobuf {

// `first` are the keys of a HashMap (their order is taken as Java's),
// `second` are added after; duplicates are dropped.
std::vector<std::string> java_hash_set_order(const std::vector<std::string>& first,
                                             const std::vector<std::string>& second);

// String.hashCode() of an ASCII (or UTF-8, read as UTF-16 code units for
// the BMP) string.
int32_t java_string_hash(const std::string& s);

}  // namespace skiff::schema::protobuf
