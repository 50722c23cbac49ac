// The text Confluent's registry stores for a JSON Schema: its
// JsonSchema.canonicalString() is Jackson's compact serialization of the
// document read with USE_BIG_DECIMAL_FOR_FLOATS and exact BigDecimals, and
// normalize() re-reads that text with object members sorted (a TreeMap).
// This writes the same bytes from a JsonValue:
//  - members in document order; a repeated name keeps its first position
//    and its last value (a LinkedHashMap put);
//  - integers as written ("-0" is 0); other numbers as
//    java.math.BigDecimal.toString() prints them ("1e5" -> "1E+5",
//    "0.0000001" -> "1E-7", "1.50" -> "1.50");
//  - strings escaped as Jackson does (\" \\ \b \t \n \f \r, other control
//    characters as \u00XX upper-case, everything else as is).
// Threads: pure functions.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "common/json.h"

namespace skiff::schema::json {

// BigDecimal.toString() of a JSON number lexeme; nullopt when Java would
// refuse it (an exponent out of int range, more than 1000 characters).
std::optional<std::string> big_decimal_text(std::string_view lexeme);

// Jackson's text of a number lexeme (integers kept, others as BigDecimal).
std::optional<std::string> jackson_number_text(std::string_view lexeme);

// Whether every number of the document is one Jackson reads.
bool jackson_numbers_valid(const JsonValue& v);

// Jackson's compact text of `v`; with `sorted`, object members ordered by
// UTF-16 code units (java.lang.String.compareTo).
std::string jackson_compact(const JsonValue& v, bool sorted);

// java.lang.String.compareTo of two UTF-8 strings (by UTF-16 code units).
bool java_string_less(std::string_view a, std::string_view b);

}  // namespace skiff::schema::json
