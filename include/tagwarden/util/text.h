#pragma once
// Small text helpers shared by stages.

#include <string>
#include <string_view>
#include <vector>

namespace tw {

/// Unicode simple lowercase of UTF-8 text (as Trino folds identifiers); invalid UTF-8 is returned unchanged.
std::string lowercase_identifier(std::string_view text);

/// "a, b and c".
std::string join_words(const std::vector<std::string>& items);
/// "a, b, c and 4980 more": for messages that would otherwise name thousands of users or tags
/// (the finding's subjects, or `explain --user`, give the whole answer).
std::string join_some(const std::vector<std::string>& items, std::size_t limit = 20);

/// JSON-style double-quoted string, safe for any bytes.
std::string quote(std::string_view text);

/// The n decimal digits at text[pos] as a number; false when any is missing or not a digit.
bool read_digits(std::string_view text, std::size_t pos, std::size_t n, int& out);

/// Lower-case hex of bytes (digests, MACs).
std::string hex_lower(const unsigned char* bytes, std::size_t size);

}  // namespace tw
