// Small string helpers shared by the config parsers.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace skiff::config {

std::string_view trim(std::string_view s);
// Splits on ',' and trims; empty items are dropped.
std::vector<std::string> split_list(std::string_view s);
std::string to_lower(std::string_view s);

}  // namespace skiff::config
