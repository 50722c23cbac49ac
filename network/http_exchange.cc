#include "network/http_exchange.h"

#include <boost/asio/post.hpp>

namespace skiff::network {

bool HttpPoster::post(std::function<void()> f) {
  std::lock_guard lock(mu_);
  if (!io_) return false;
  boost::asio::post(*io_, std::move(f));
  return true;
}

void HttpPoster::close() {
  std::lock_guard lock(mu_);
  io_ = nullptr;
}

void HttpExchangeChannel::kick_locked(std::unique_lock<std::mutex>& lock) {
  const bool post = !kick_pending_ && !closed_;
  kick_pending_ = kick_pending_ || post;
  lock.unlock();
  if (post && kick_) kick_();
}

bool HttpExchangeChannel::push_out(HttpOut out, bool bounded) {
  std::unique_lock lock(mu_);
  if (bounded) cv_.wait(lock, [&] { return closed_ || out_bytes_ < queue_bytes_; });
  if (closed_) return false;
  out_bytes_ += out.chunk.size();
  out_.push_back(std::move(out));
  kick_locked(lock);
  return true;
}

HttpExchangeChannel::Read HttpExchangeChannel::pop_in(std::string& piece) {
  std::unique_lock lock(mu_);
  cv_.wait(lock, [&] { return closed_ || in_done_ || !in_.empty(); });
  if (closed_) return Read::kClosed;
  if (in_.empty()) return Read::kEnd;
  piece = std::move(in_.front());
  in_.pop_front();
  in_bytes_ -= piece.size();
  if (in_paused_ && in_bytes_ < queue_bytes_) {
    in_paused_ = false;
    kick_locked(lock);
  }
  return Read::kData;
}

bool HttpExchangeChannel::closed() {
  std::lock_guard lock(mu_);
  return closed_;
}

bool HttpExchangeChannel::pop_out(HttpOut& out) {
  std::lock_guard lock(mu_);
  if (out_.empty() || closed_) return false;
  out = std::move(out_.front());
  out_.pop_front();
  return true;
}

void HttpExchangeChannel::written(size_t bytes) {
  std::lock_guard lock(mu_);
  out_bytes_ -= std::min(out_bytes_, bytes);
  cv_.notify_all();
}

bool HttpExchangeChannel::push_in(std::string piece) {
  std::lock_guard lock(mu_);
  in_bytes_ += piece.size();
  in_.push_back(std::move(piece));
  in_paused_ = in_bytes_ >= queue_bytes_;
  cv_.notify_all();
  return !in_paused_;
}

bool HttpExchangeChannel::in_room() {
  std::lock_guard lock(mu_);
  return !in_paused_;
}

void HttpExchangeChannel::in_end() {
  std::lock_guard lock(mu_);
  in_done_ = true;
  cv_.notify_all();
}

void HttpExchangeChannel::close() {
  std::lock_guard lock(mu_);
  closed_ = true;
  out_.clear();
  in_.clear();
  cv_.notify_all();
}

void HttpExchangeChannel::kicked() {
  std::lock_guard lock(mu_);
  kick_pending_ = false;
}

HttpExchange::~HttpExchange() {
  if (state_ == State::kDone) return;
  HttpOut out;
  if (state_ == State::kNone) {
    out.response.status = 500;
    out.response.body = "internal error: no answer\n";
  } else {
    out.kind = HttpOut::Kind::kAbort;
  }
  channel_->push_out(std::move(out), false);
}

bool HttpExchange::respond(HttpResponse response) {
  if (state_ != State::kNone) return false;
  state_ = State::kDone;
  return channel_->push_out({HttpOut::Kind::kWhole, std::move(response), {}}, false);
}

bool HttpExchange::begin(int status, std::string content_type,
                         std::vector<std::pair<std::string, std::string>> headers) {
  if (state_ != State::kNone) return false;
  state_ = State::kStreaming;
  HttpOut out{HttpOut::Kind::kHead, {}, {}};
  out.response.status = status;
  out.response.content_type = std::move(content_type);
  out.response.headers = std::move(headers);
  return channel_->push_out(std::move(out), false);
}

bool HttpExchange::write(std::string piece) {
  if (state_ != State::kStreaming) return false;
  if (piece.empty()) return !channel_->closed();
  return channel_->push_out({HttpOut::Kind::kChunk, {}, std::move(piece)}, true);
}

bool HttpExchange::end() {
  if (state_ != State::kStreaming) return false;
  state_ = State::kDone;
  return channel_->push_out({HttpOut::Kind::kEnd, {}, {}}, false);
}

}  // namespace skiff::network
