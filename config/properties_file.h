// Java's .properties format (java.util.Properties.load), in which Kafka's
// server.properties is written: the config file of the apache/kafka image's
// /mnt/shared/config. Pure parsing; the loader reads the file.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace skiff::config {

// key=value, key: value or key value lines; '#' and '!' comments; a line
// ending in an odd number of backslashes continues on the next; escapes \t,
// \n, \r, \f, \uXXXX (as UTF-8) and \<char>. In file order, duplicates kept
// (the last wins when applied).
std::vector<std::pair<std::string, std::string>> parse_properties(std::string_view text);

}  // namespace skiff::config
