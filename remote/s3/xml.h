// A small XML reader for the subset S3 answers in: an optional declaration,
// comments, elements with attributes (read and dropped), character data with
// the five predefined entities and numeric character references (&#N; &#xH;,
// encoded back as UTF-8), CDATA sections. Namespace prefixes are dropped from
// element names ("s3:Key" is "Key"). No DTDs, no processing instructions past
// the declaration. Hostile input is refused with a message, never a crash:
// the input size, the nesting depth and the number of elements are bounded.
// Pure functions, any thread.
//
// Text of an element is the concatenation of its direct character data.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/expected.h"

namespace skiff::remote::s3 {

struct XmlElement {
  std::string name;  // local name, without prefix
  std::string text;  // decoded character data directly inside this element
  std::vector<XmlElement> children;

  // The first child named `name`, or nullptr.
  const XmlElement* child(std::string_view name) const;
  // The text of the first child named `name`, or nullopt.
  std::optional<std::string> child_text(std::string_view name) const;
  // Every child named `name`, in document order.
  std::vector<const XmlElement*> all(std::string_view name) const;
};

struct XmlLimits {
  size_t max_bytes = 64u << 20;
  size_t max_depth = 32;
  size_t max_elements = 1u << 20;
};

// The document's root element, or what is wrong with the document.
Expected<XmlElement, std::string> parse_xml(std::string_view doc, const XmlLimits& limits = {});

// "&lt;" -> "<" etc.; nullopt on an unknown or malformed reference.
std::optional<std::string> decode_xml_entities(std::string_view s);
// '&', '<', '>', '"', '\'' escaped, for the request bodies the client writes.
std::string xml_escape(std::string_view s);

}  // namespace skiff::remote::s3
