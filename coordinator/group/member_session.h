// The session timer of a consumer, share or streams group's member (Kafka's
// groupSessionTimeoutKey timers): every heartbeat moves the member's
// deadline; one TimerQueue timer is live at a time (`session_timer_round`),
// and when it fires it re-checks the deadline under the group's lock,
// re-arming itself when the deadline moved, so a heartbeat costs no timer.
// A deadline earlier than the live timer's (a lowered session timeout) arms
// a new timer; the older one then finds another round and does nothing.
//
// The member types carry the fields session_deadline, session_timer_at,
// session_timer_armed and session_timer_round.
//
// Threads: called with the member's group lock held (`fire` runs on the
// TimerQueue thread and takes that lock before calling expired()).
#pragma once

#include <chrono>
#include <cstdint>

#include "coordinator/runtime/timer_queue.h"

namespace skiff::group::member_session {

// Moves the deadline to now + `session_ms`; `fire(round)` is scheduled
// unless the live timer comes first.
template <class Member, class Fire>
void arm(coordinator::TimerQueue& timers, Member& m, int32_t session_ms, Fire fire) {
  m.session_deadline = coordinator::TimerQueue::Clock::now() + std::chrono::milliseconds(session_ms);
  if (m.session_timer_armed && m.session_timer_at <= m.session_deadline) return;  // it will see the new deadline
  m.session_timer_armed = true;
  m.session_timer_at = m.session_deadline;
  const uint64_t round = ++m.session_timer_round;
  timers.schedule(m.session_deadline, [fire, round] { fire(round); });
}

// In the timer of `round`: true when the member's session expired; false
// when a newer timer is live, or when the deadline moved (re-armed with `fire`).
template <class Member, class Fire>
bool expired(coordinator::TimerQueue& timers, Member& m, uint64_t round, Fire fire) {
  if (m.session_timer_round != round) return false;
  m.session_timer_armed = false;
  if (coordinator::TimerQueue::Clock::now() >= m.session_deadline) return true;
  m.session_timer_armed = true;
  m.session_timer_at = m.session_deadline;
  const uint64_t next = ++m.session_timer_round;
  timers.schedule(m.session_deadline, [fire, next] { fire(next); });
  return false;
}

}  // namespace skiff::group::member_session
