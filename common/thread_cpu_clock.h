// ThreadCpuClock: the CPU time one thread has used, readable from another
// thread (a /metrics scrape), from the kernel's per-thread CPU clock. The
// thread attaches itself when it starts and detaches as it ends; after that
// the clock holds the final figure, so a reader never reads the clock of an
// ended thread (whose id the kernel may have given to another one).
// Threads: attach/detach on the measured thread; seconds() from any thread.
#pragma once

#include <pthread.h>
#include <time.h>

#include <mutex>

namespace skiff {

class ThreadCpuClock {
 public:
  void attach() {
    std::lock_guard lock(mu_);
    attached_ = pthread_getcpuclockid(pthread_self(), &clock_) == 0;
  }
  void detach() {
    std::lock_guard lock(mu_);
    if (attached_) final_ = read();
    attached_ = false;
  }
  // CPU seconds used so far (0 before attach).
  double seconds() const {
    std::lock_guard lock(mu_);
    return attached_ ? read() : final_;
  }

 private:
  double read() const {
    timespec ts{};
    if (clock_gettime(clock_, &ts) != 0) return final_;
    return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) / 1e9;
  }

  mutable std::mutex mu_;
  clockid_t clock_{};
  bool attached_ = false;
  double final_ = 0;
};

}  // namespace skiff
