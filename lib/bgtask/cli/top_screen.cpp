// The one file that speaks curses. ncurses (Debian's libncursesw) is used
// through newterm on stdout/stdin, so a terminal it cannot drive is an
// error bgtask reports, not an exit inside the library. The caller installs
// its SIGINT, SIGTERM and SIGWINCH handlers first: ncurses then leaves them
// alone, and `top` ends and resizes through its own loop.
#include <bgtask/cli/top_screen.hpp>
#include <bgtask/util/error.hpp>

#include <clocale>
#include <cstdio>
#include <curses.h>
#include <langinfo.h>
#include <string_view>
#include <sys/ioctl.h>
#include <unistd.h>

namespace bgtask {

namespace {

constexpr short k_failed_pair = 1;
constexpr int k_escape_delay_ms = 25;

// Multibyte output needs a UTF-8 locale: the user's, else C.UTF-8.
void choose_utf8_locale()
{
  if (std::setlocale(LC_CTYPE, "") != nullptr &&
      std::string_view(nl_langinfo(CODESET)) == "UTF-8") {
    return;
  }
  std::setlocale(LC_CTYPE, "C.UTF-8");
}

chtype style_attributes(TopStyle style, bool color)
{
  switch (style) {
  case TopStyle::plain:
    return A_NORMAL;
  case TopStyle::title:
  case TopStyle::header:
    return A_BOLD;
  case TopStyle::selected:
    return A_REVERSE;
  case TopStyle::failed:
    return color ? (COLOR_PAIR(k_failed_pair) | A_BOLD) : A_BOLD;
  case TopStyle::ended:
    return A_DIM;
  case TopStyle::footer:
    return A_REVERSE;
  }
  return A_NORMAL;
}

std::optional<TopKey> key_of(int code)
{
  using Kind = TopKey::Kind;
  switch (code) {
  case KEY_UP:
    return TopKey{Kind::up};
  case KEY_DOWN:
    return TopKey{Kind::down};
  case KEY_PPAGE:
    return TopKey{Kind::page_up};
  case KEY_NPAGE:
    return TopKey{Kind::page_down};
  case KEY_HOME:
    return TopKey{Kind::home};
  case KEY_END:
    return TopKey{Kind::end};
  case KEY_ENTER:
  case '\n':
  case '\r':
    return TopKey{Kind::enter};
  case 27:
    return TopKey{Kind::escape};
  case KEY_BACKSPACE:
  case 127:
  case 8:
    return TopKey{Kind::backspace};
  default:
    break;
  }
  if (code >= 0x20 && code < 0x7f) {
    return TopKey{Kind::character, static_cast<char>(code)};
  }
  return std::nullopt; // a key `top` has no use for
}

} // namespace

TopScreen::TopScreen(Color color)
{
  choose_utf8_locale();
  m_screen = newterm(nullptr, stdout, stdin);
  if (m_screen == nullptr) {
    throw Error(ExitCode::usage, "top: cannot drive this terminal (TERM is unset or unknown)");
  }
  set_term(m_screen);
  cbreak();
  noecho();
  nonl();
  keypad(stdscr, TRUE);
  nodelay(stdscr, TRUE);
  set_escdelay(k_escape_delay_ms);
  curs_set(0);
  if (color == Color::yes && has_colors()) {
    start_color();
    use_default_colors();
    init_pair(k_failed_pair, COLOR_RED, -1);
    m_color = true;
  }
}

TopScreen::~TopScreen()
{
  endwin();
  delscreen(m_screen);
}

std::size_t TopScreen::width() const
{
  return static_cast<std::size_t>(COLS);
}

std::size_t TopScreen::height() const
{
  return static_cast<std::size_t>(LINES);
}

void TopScreen::paint(const std::vector<TopLine>& lines)
{
  werase(stdscr);
  for (std::size_t i = 0; i < lines.size() && i < height(); ++i) {
    const chtype attributes = style_attributes(lines[i].style, m_color);
    wattrset(stdscr, static_cast<int>(attributes));
    mvwaddstr(stdscr, static_cast<int>(i), 0, lines[i].text.c_str());
    if (lines[i].style == TopStyle::selected || lines[i].style == TopStyle::footer) {
      wclrtoeol(stdscr); // the bar spans the line
      mvwchgat(stdscr, static_cast<int>(i), 0, -1, static_cast<attr_t>(attributes), 0, nullptr);
    }
  }
  wattrset(stdscr, A_NORMAL);
  wrefresh(stdscr);
}

std::optional<TopKey> TopScreen::next_key()
{
  for (;;) {
    const int code = wgetch(stdscr);
    if (code == ERR) {
      return std::nullopt;
    }
    if (auto key = key_of(code)) {
      return key;
    }
  }
}

void TopScreen::resize()
{
  winsize size{};
  if (::ioctl(STDOUT_FILENO, TIOCGWINSZ, &size) == 0 && size.ws_row > 0 && size.ws_col > 0) {
    resize_term(size.ws_row, size.ws_col);
  }
}

void TopScreen::suspend()
{
  endwin();
}

void TopScreen::resume()
{
  clearok(curscr, TRUE);
  wrefresh(stdscr);
}

} // namespace bgtask
