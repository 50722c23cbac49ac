// Expected<T, E>: a value or an error, the C++20 stand-in for C++23's
// std::expected (the subset Skiff uses: has_value / operator bool, value(),
// *, ->, error(), value_or). An error is made with unexpected(e); T = void
// holds only the error, and Expected<void, E>{} is success. Reading the
// value of an error (or the error of a value) is a programming error and
// aborts, as std::get on the wrong alternative throws. Header-only, no
// dependencies beyond the standard library; the same thread rules as T and E.
#pragma once

#include <cstdlib>
#include <optional>
#include <type_traits>
#include <utility>
#include <variant>

namespace skiff {

template <class E>
struct Unexpected {
  E error;
};

namespace detail {
template <class X>
struct is_unexpected : std::false_type {};
template <class G>
struct is_unexpected<Unexpected<G>> : std::true_type {};
}  // namespace detail

template <class E>
Unexpected<std::decay_t<E>> unexpected(E&& e) {
  return {std::forward<E>(e)};
}

template <class T, class E>
class [[nodiscard]] Expected {
 public:
  // From anything T is made of (a T, or a BatchHeader for an optional<BatchHeader>), as std::expected.
  template <class U = T, class = std::enable_if_t<!std::is_same_v<std::remove_cvref_t<U>, Expected> &&
                                                  !detail::is_unexpected<std::remove_cvref_t<U>>::value &&
                                                  std::is_constructible_v<T, U&&>>>
  Expected(U&& value) : v_(std::in_place_index<0>, std::forward<U>(value)) {}  // NOLINT(google-explicit-constructor)
  template <class G>
  Expected(Unexpected<G> u) : v_(std::in_place_index<1>, std::move(u.error)) {}  // NOLINT(google-explicit-constructor)

  bool has_value() const { return v_.index() == 0; }
  explicit operator bool() const { return has_value(); }

  T& value() & { return checked<0>(); }
  const T& value() const& { return const_cast<Expected*>(this)->checked<0>(); }
  T&& value() && { return std::move(checked<0>()); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  template <class U>
  T value_or(U&& fallback) const& {
    return has_value() ? std::get<0>(v_) : static_cast<T>(std::forward<U>(fallback));
  }

  E& error() & { return checked<1>(); }
  const E& error() const& { return const_cast<Expected*>(this)->checked<1>(); }

 private:
  template <size_t I>
  auto& checked() {
    if (v_.index() != I) std::abort();
    return *std::get_if<I>(&v_);
  }
  std::variant<T, E> v_;
};

template <class E>
class [[nodiscard]] Expected<void, E> {
 public:
  Expected() = default;
  template <class G>
  Expected(Unexpected<G> u) : e_(std::move(u.error)) {}  // NOLINT(google-explicit-constructor)

  bool has_value() const { return !e_.has_value(); }
  explicit operator bool() const { return has_value(); }

  E& error() & {
    if (!e_) std::abort();
    return *e_;
  }
  const E& error() const& { return const_cast<Expected*>(this)->error(); }

 private:
  std::optional<E> e_;
};

}  // namespace skiff
