#pragma once

#include <string>
#include <utility>
#include <variant>

namespace bgtask {

// Why an expected failure happened: a message for people (it names the
// input and what was expected), never thrown.
struct Failure
{
  std::string reason;
};

// The outcome of an operation that can fail in an expected way: a value, or
// a Failure saying why not. The caller decides what a failure means (the
// command line turns a parser's into Error(usage), for instance); library
// code returns it instead of throwing. A small stand-in for
// std::expected<T, std::string> (C++23).
template <typename T> class [[nodiscard]] Result
{
public:
  Result(T value)
    : m_state(std::in_place_index<0>, std::move(value))
  {
  }
  Result(Failure failure)
    : m_state(std::in_place_index<1>, std::move(failure))
  {
  }

  bool has_value() const { return m_state.index() == 0; }
  explicit operator bool() const { return has_value(); }

  // The value; only when has_value().
  const T& value() const& { return std::get<0>(m_state); }
  T& value() & { return std::get<0>(m_state); }
  T&& value() && { return std::get<0>(std::move(m_state)); }
  const T& operator*() const& { return value(); }
  const T* operator->() const { return &value(); }

  // The reason; only when !has_value().
  const std::string& error() const { return std::get<1>(m_state).reason; }

  // The value, or `fallback` on failure.
  T value_or(T fallback) const& { return has_value() ? value() : std::move(fallback); }

private:
  std::variant<T, Failure> m_state;
};

} // namespace bgtask
