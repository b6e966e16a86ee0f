#pragma once

#include <bgtask/cli/command.hpp>

#include <span>

namespace bgtask {

// Every command's declaration, sorted by name: drives dispatch, help and
// completion.
std::span<const Command> all_commands();

} // namespace bgtask
