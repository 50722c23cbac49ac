// The `format` values everit-json-schema checks by default in drafts 4 to 7
// (Confluent's JSON Schema serializer validates with them), for
// json_validate.h: date-time, date, time, email, hostname, ipv4, ipv6, uri,
// uri-reference, json-pointer, relative-json-pointer, regex. Any other
// format passes, as in everit. The checks follow everit's rules in outline
// (dates and times as its java.time patterns, with calendar ranges; IP
// addresses as inet_pton reads them; email as a local part, '@' and a
// dotted host name or an IP literal; a host name's labels are checked, its
// top-level domain is not looked up in IANA's list as everit's
// commons-validator does (so "x.local" passes here, not there); URIs as RFC 3986 characters with a scheme for "uri";
// regex: RE2 compiles it), not character for character.
// Threads: pure functions.
#pragma once

#include <optional>
#include <string>

namespace skiff::schema::json {

// nullopt when `value` is valid for `format` (or the format is unknown);
// else everit's complaint ("[x] is not a valid email address").
std::optional<std::string> format_failure(const std::string& format, const std::string& value);

}  // namespace skiff::schema::json
