#pragma once
// Writing a file so that readers see the old bytes or the new bytes, never a
// mix, and the new bytes survive a crash once this returns.

#include <string>
#include <string_view>

namespace tw {

/// Temp file in the same directory, write, fsync, rename over `path`, fsync the
/// directory. Creates missing parent directories. Throws std::runtime_error
/// naming the path and the system error.
void write_file_atomically(const std::string& path, std::string_view content);

}  // namespace tw
