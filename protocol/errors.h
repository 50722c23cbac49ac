// Exceptions of the codec. Protocol outcomes are values elsewhere; these are
// only for input we cannot parse or messages we cannot express in a version.
#pragma once

#include <stdexcept>
#include <string>

namespace skiff::protocol {

// Base of every codec error, so a caller can catch them all at once.
class ProtocolError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Malformed input: truncated, oversized lengths, bad varints, null where the
// version forbids it. The network layer closes the connection on it.
class DecodeError : public ProtocolError {
 public:
  using ProtocolError::ProtocolError;
};

// A value the wire format cannot carry (e.g. a string over 32767 bytes in a
// non-flexible version, or null in a non-nullable version).
class EncodeError : public ProtocolError {
 public:
  using ProtocolError::ProtocolError;
};

// Kafka's UnsupportedVersionException: a version outside the message's valid
// range, or a non-default value in a non-ignorable field the version lacks.
class UnsupportedVersionError : public ProtocolError {
 public:
  using ProtocolError::ProtocolError;
};

}  // namespace skiff::protocol
