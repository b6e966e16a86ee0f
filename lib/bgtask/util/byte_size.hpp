#pragma once

#include <bgtask/util/result.hpp>

#include <cstdint>
#include <string_view>

namespace bgtask {

// Parses a size: a non-negative integer with an optional unit: B, K/KB/KiB,
// M/MB/MiB, G/GB/GiB (all binary, case-insensitive), e.g. `512`, `64K`, `1MiB`.
// A failure naming `text` for anything else, including a value above 2^62.
Result<std::uint64_t> parse_byte_size(std::string_view text);

} // namespace bgtask
