#pragma once

namespace bgtask {

// Which way `pause` and `resume` change a task's process tree.
enum class PauseAction { pause, resume };

} // namespace bgtask
