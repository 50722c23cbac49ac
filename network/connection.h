// Connection: one client socket, owned by exactly one Processor and touched
// only on that Processor's thread.
//
// Life of a request: read the 4-byte size, read the body, hand the frame to
// the Processor (which queues it on the RequestChannel), stay muted until the
// response has been written, then look at the next frame. Muting keeps
// responses in request order; pipelined requests wait in the socket buffer.
// Before a frame's body is read, its bytes are reserved in the shared
// MemoryPool (queued.max.request.bytes); while the pool has no room the
// connection reads nothing and waits on its Processor.
#pragma once

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "network/connection_quotas.h"
#include "network/memory_pool.h"
#include "network/request.h"

namespace skiff::network {

class Processor;

class Connection : public std::enable_shared_from_this<Connection> {
 public:
  Connection(Processor& processor, boost::asio::ip::tcp::socket socket, ConnectionQuotas::Slot slot,
             RequestContext context);

  void start();
  void on_response(Response response);
  // The MemoryPool refused this connection's next frame: try again (Processor
  // thread); true when admitted, then resume_reading() carries on.
  bool try_admit_waiting_frame();
  void resume_reading();
  void close(const std::string& reason);

  uint64_t id() const { return context_.connection_id; }
  bool muted() const { return muted_; }
  // Waiting for the MemoryPool: the broker's doing, so not idle.
  bool waiting_for_memory() const { return wanted_bytes_ > 0; }
  bool closed() const { return closed_; }
  std::chrono::steady_clock::time_point last_active() const { return last_active_; }

 private:
  void process_buffer();
  bool reserve_memory(int64_t frame_bytes);
  void make_room(size_t need);
  void read_more();
  void read_large_frame(Frame frame, size_t have);
  void dispatch(Frame frame);
  void try_enqueue();
  void unmute();
  void write_chunks(size_t index);
  void send_file_region(size_t index, FileRegion region);

  Processor& processor_;
  boost::asio::ip::tcp::socket socket_;
  ConnectionQuotas::Slot slot_;
  RequestContext context_;
  boost::asio::steady_timer retry_timer_;

  // Read buffer. A complete frame is handed on as a view into it (no copy);
  // while a handler still holds one, the bytes before rpos_ are not ours to
  // overwrite, so compaction moves the unread bytes to a fresh buffer instead.
  SharedBuffer buf_;
  size_t cap_ = 0;
  size_t rpos_ = 0, wpos_ = 0;
  bool reading_ = false;
  bool muted_ = false;
  bool closed_ = false;
  std::optional<Request> pending_;  // waiting for room in the RequestChannel
  // The current frame's share of queued.max.request.bytes: taken when its size
  // is known, before its body is read; given back once its response is written.
  std::optional<MemoryPool::Lease> lease_;
  int64_t wanted_bytes_ = 0;                           // > 0: waiting for the MemoryPool, not reading
  Response response_;                                  // being written
  std::chrono::steady_clock::time_point last_active_;  // last whole request in or response out
};

}  // namespace skiff::network
