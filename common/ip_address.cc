#include "common/ip_address.h"

#include <arpa/inet.h>
#include <netinet/in.h>

#include <cstring>

namespace skiff {

std::optional<std::string> canonical_ip(std::string_view text) {
  std::string s(text);
  if (s.size() > 2 && s.front() == '[' && s.back() == ']') s = s.substr(1, s.size() - 2);
  char buf[INET6_ADDRSTRLEN] = {};
  in_addr v4{};
  if (::inet_pton(AF_INET, s.c_str(), &v4) == 1) return ::inet_ntop(AF_INET, &v4, buf, sizeof buf);
  in6_addr v6{};
  if (::inet_pton(AF_INET6, s.c_str(), &v6) != 1) return std::nullopt;
  if (IN6_IS_ADDR_V4MAPPED(&v6)) {
    std::memcpy(&v4, v6.s6_addr + 12, 4);
    return ::inet_ntop(AF_INET, &v4, buf, sizeof buf);
  }
  return ::inet_ntop(AF_INET6, &v6, buf, sizeof buf);
}

}  // namespace skiff
