// Connection: one client socket, owned by one Processor. Its methods run on
// that Processor's thread only; the part other threads touch (writing an owed
// response, the owed flag, the frame's memory lease) is its ResponseGate,
// whose header states the socket ownership rule.
//
// Life of a request: read the 4-byte size, read the body, hand the frame to
// the Processor (which queues it on the RequestChannel). The response is now
// owed, and the next frame waits until it is written: one request in flight
// per connection keeps responses in request order. While owed, the
// connection keeps a read armed (into the free tail of its buffer), so that
// its next request, not the answer, is what wakes the Processor: the thread
// that makes the answer usually writes it itself (ResponseGate). Whole
// frames that follow (pipelining) are staged in the gate, whose writer of
// the owed response takes the next one on itself; once ResponseGate::
// kMaxStaged wait (or the buffer is full), it stops reading and asks the gate
// to wake it when the answer is written.
// What is read is acknowledged at once unless the Processor coalesces, so a
// client that holds small requests for Nagle sends them while the last is
// answered (acknowledge_now).
// Before a frame's body is read, its bytes are reserved in the shared
// MemoryPool (queued.max.request.bytes); while the pool has no room the
// connection reads nothing and waits on its Processor.
//
// A response carrying a throttle (a client quota, Response::throttle) mutes
// the connection once written: nothing is read or taken until it elapses.
//
// On an SSL listener the connection first completes a TLS handshake, which
// names its principal, then reads and writes through its TlsStream
// (connection_tls.cc); only the Processor writes such a socket.
#pragma once

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "network/connection_quotas.h"
#include "network/memory_pool.h"
#include "network/request.h"
#include "network/response_gate.h"
#include "network/response_write.h"
#include "network/sasl_session.h"
#include "network/tls_context.h"
#include "network/tls_stream.h"

namespace skiff::network {

class Processor;

class Connection : public std::enable_shared_from_this<Connection> {
 public:
  // `tls`: the listener's TLS context; null for PLAINTEXT.
  Connection(Processor& processor, boost::asio::ip::tcp::socket socket, ConnectionQuotas::Slot slot,
             RequestContext context, std::shared_ptr<const TlsContext> tls = nullptr);
  // The gate is closed before the socket, on every path (see close()).
  ~Connection() { gate_->close(); }

  void start();
  // A response handed to the Processor (not, or not wholly, written by the
  // thread that made it).
  void on_response(Response response);
  // The owed response was written by the thread that made it, and the gate
  // was asked to say so (request_wake).
  void on_answered();
  // The MemoryPool refused this connection's next frame: try again (Processor
  // thread); true when admitted, then resume_reading() carries on.
  bool try_admit_waiting_frame();
  void resume_reading();
  void close(const std::string& reason);

  uint64_t id() const { return context_.connection_id; }
  const std::string& peer_address() const { return context_.peer_address; }
  // A TLS connection whose handshake is not finished.
  bool handshaking() const { return tls_ && !tls_->handshake_done(); }
  ResponseGate& gate() { return *gate_; }
  bool owed() const { return gate_->owed(); }
  // Waiting for the MemoryPool: the broker's doing, so not idle.
  bool waiting_for_memory() const { return wanted_bytes_ > 0; }
  bool closed() const { return closed_; }
  std::chrono::steady_clock::time_point last_active() const { return gate_->last_active(); }

 private:
  void process_buffer();
  bool frame_size_ok(int32_t size);
  Frame take_frame(int32_t size);
  void read_while_owed();
  bool can_stage() const;
  bool stage_next();
  bool has_whole_frame() const;
  bool reserve_memory(int64_t frame_bytes);
  void make_room(size_t need);
  void read_more();
  void read_large_frame(Frame frame, size_t have);
  void dispatch(Frame frame);
  Request make_request(Frame frame, bool raw_sasl_token);
  void send(Request request);
  void enqueue(Request request);
  void try_enqueue();
  void finish_answer();
  void continue_write();
  // TLS or not (connection_tls.cc): up to `size` bytes into `data`, then `done`.
  using ReadHandler = std::function<void(const boost::system::error_code&, size_t)>;
  void read_some(uint8_t* data, size_t size, ReadHandler done);
  void read_exactly(uint8_t* data, size_t size, ReadHandler done);
  void acknowledge_now();
  WriteStatus write_some(std::string& error);
  void continue_handshake();
  void on_handshake_done();
  // SASL listeners (connection_sasl.cc).
  int32_t max_frame_bytes();
  bool sasl_admits(const Frame& frame, bool& raw_token);
  void refresh_sasl();
  void close_after(std::chrono::milliseconds delay);
  void mute_for(std::chrono::milliseconds throttle);
  bool muted();

  Processor& processor_;
  boost::asio::ip::tcp::socket socket_;
  ConnectionQuotas::Slot slot_;
  RequestContext context_;
  boost::asio::steady_timer retry_timer_;
  boost::asio::steady_timer throttle_timer_;             // armed while muted
  std::chrono::steady_clock::time_point muted_until_{};  // a quota's throttle

  // Read buffer. A complete frame is handed on as a view into it (no copy);
  // while a handler still holds one, the bytes before rpos_ are not ours to
  // overwrite, so compaction moves the unread bytes to a fresh buffer instead.
  SharedBuffer buf_;
  size_t cap_ = 0;
  size_t rpos_ = 0, wpos_ = 0;
  bool reading_ = false;
  bool closed_ = false;
  bool eof_seen_ = false;           // the peer shut its side: close once nothing more can be answered
  bool writing_ = false;            // the Processor is writing response_
  std::optional<Request> pending_;  // waiting for room in the RequestChannel
  // The next frame's share of queued.max.request.bytes: taken when its size
  // is known, before its body is read; moved into the gate at dispatch, which
  // gives it back once the response is written.
  std::optional<MemoryPool::Lease> lease_;
  int64_t wanted_bytes_ = 0;  // > 0: waiting for the MemoryPool, not reading
  Response response_;         // being written by the Processor
  WriteCursor cursor_;        // how much of response_ is written
  std::shared_ptr<ResponseGate> gate_;
  std::unique_ptr<TlsStream> tls_;  // null on a PLAINTEXT listener
  bool write_wants_read_ = false;   // TLS: a blocked write waits for the socket to be readable
  // SASL: the session's stage as last read (refresh_sasl), and a response
  // that closes the connection once written (a failed authentication).
  SaslSession::Gate sasl_gate_{};
  std::optional<std::chrono::milliseconds> close_after_write_;
};

}  // namespace skiff::network
