#pragma once

#include <bgtask/cli/console.hpp>
#include <bgtask/cli/top_layout.hpp>

#include <cstddef>
#include <optional>
#include <vector>

struct screen; // curses' SCREEN (curses.h)

namespace bgtask {

// A key typed in `top`, as the commands of top_screen's caller read it.
struct TopKey
{
  enum class Kind { character, up, down, page_up, page_down, home, end, enter, escape, backspace };
  Kind kind = Kind::character;
  char ch = 0; // Kind::character: the (ASCII) character
};

// The terminal in curses mode (ncurses) for `bgtask top`: the alternate
// screen, no echo, keys read one at a time without waiting (Ctrl-C and
// Ctrl-Z still send their signals), no cursor. The destructor restores
// the terminal as it was (endwin), whatever way `top` ends. Nothing is
// written until paint().
class TopScreen
{
public:
  // Throws Error(usage) if the terminal (TERM) cannot be driven.
  explicit TopScreen(Color color);
  ~TopScreen();
  TopScreen(const TopScreen&) = delete;
  TopScreen& operator=(const TopScreen&) = delete;

  std::size_t width() const;
  std::size_t height() const;

  // Shows `lines` (layout_top), one per screen line, styled.
  void paint(const std::vector<TopLine>& lines);

  // The next key typed, or nullopt when none is waiting.
  std::optional<TopKey> next_key();

  // Takes the terminal's new size (after SIGWINCH).
  void resize();

  // Leaves curses mode (the terminal as before, the normal screen) for a
  // follower that prints; resume() comes back and repaints everything.
  void suspend();
  void resume();

private:
  ::screen* m_screen = nullptr;
  bool m_color = false;
};

} // namespace bgtask
