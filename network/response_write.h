// Writing a response frame to a non-blocking socket without ever blocking:
// runs of byte chunks in one gathered sendmsg, file regions with sendfile.
// Used by the Processor and by the thread that made a response when it writes
// the response itself (ResponseGate). Stateless; the caller makes sure one
// thread at a time writes a given response to a given socket.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "network/request.h"

namespace skiff::network {

// How far a response has been written: whole chunks before `chunk`, and
// `offset` bytes of chunk `chunk`.
struct WriteCursor {
  size_t chunk = 0;
  size_t offset = 0;
};

enum class WriteStatus {
  kDone,     // every chunk written
  kBlocked,  // the socket takes no more for now; `at` says where to go on
  kFailed,   // the connection is broken; `error` says why
};

// `more`: more of the stream follows at once (MSG_MORE on the byte chunks:
// the kernel holds a partial segment until a write without it, or an
// explicit push, sends them together).
WriteStatus write_response_chunks(int fd, std::vector<ResponseChunk>& chunks, WriteCursor& at, std::string& error,
                                  bool more = false);

// Drops what `at` says is written, so the rest can be written from a fresh cursor.
void drop_written(std::vector<ResponseChunk>& chunks, WriteCursor at);

}  // namespace skiff::network
