// Number texts of Protobuf option values: how a double is printed when its
// lexeme is gone (libprotoc keeps the value only), and how Confluent's
// normalizing printer re-formats a number (Apache Commons'
// NumberUtils.createNumber, then a java.text.DecimalFormat without grouping:
// integers in decimal, at most three fraction digits, half-even).
//
// Threads: pure functions.
#pragma once

#include <string>
#include <string_view>

namespace skiff::schema::protobuf {

// The shortest text that reads back as `value` ("1.5", "1e+20", "inf").
std::string shortest_double(double value);

// The normalized text of a number lexeme; the lexeme itself when it is not
// a number Java would parse ("inf", "nan").
std::string normalize_number(std::string_view lexeme);

}  // namespace skiff::schema::protobuf
