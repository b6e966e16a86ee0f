#pragma once

namespace bgtask {

// What --color asks for: colour on a terminal only (auto), always or never.
enum class ColorChoice { automatic, always, never };

} // namespace bgtask
