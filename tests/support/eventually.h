// eventually(pred): polls `pred` every 5 ms until it holds or `timeout`
// passes; its last answer. For tests waiting on another thread's effect.
// Header-only; any thread.
#pragma once

#include <chrono>
#include <thread>

namespace skiff::test {

template <typename Pred>
bool eventually(Pred pred, std::chrono::milliseconds timeout = std::chrono::seconds(10)) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    if (pred()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return pred();
}

}  // namespace skiff::test
