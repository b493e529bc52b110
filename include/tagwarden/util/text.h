#pragma once
// Small text helpers shared by stages.

#include <string>
#include <string_view>
#include <vector>

namespace tw {

/// UTF-8 text lowercased exactly as Trino lowercases identifiers: Java's
/// `String.toLowerCase(Locale.ENGLISH)` (Character.toLowerCase per code point, plus U+0130 -> "i" U+0307),
/// from a table generated with the JDK Trino runs on (scripts/GenJavaLowercase.java), so the result does
/// not depend on this machine's locales. Invalid UTF-8 (malformed, overlong, surrogate, > U+10FFFF) is
/// returned unchanged. The one context-dependent mapping, Java's final sigma, is NOT applied: U+03A3 always
/// becomes U+03C3, which is wrong where Java writes U+03C2 -- callers that need Trino's exact name must
/// first check has_context_dependent_lowercase() and refuse such names.
std::string lowercase_identifier(std::string_view text);

/// True when `text` contains a code point whose Java lowercase depends on the text around it (today only
/// U+03A3 GREEK CAPITAL LETTER SIGMA: Java writes final sigma U+03C2 at the end of a word, as decided by
/// its word BreakIterator, and U+03C3 elsewhere). For such text lowercase_identifier() may differ from
/// Trino's name, so an engine that lowercases (Trino) must not be given a rule keyed by it. Every
/// well-formed code point counts, even in text that is otherwise invalid UTF-8 (errs toward refusing).
bool has_context_dependent_lowercase(std::string_view text);

/// "a, b and c".
std::string join_words(const std::vector<std::string>& items);
/// "a, b, c and 4980 more": for messages that would otherwise name thousands of users or tags
/// (the finding's subjects, or `explain --user`, give the whole answer).
std::string join_some(const std::vector<std::string>& items, std::size_t limit = 20);

/// JSON-style double-quoted string, safe for any bytes.
std::string quote(std::string_view text);

/// `text` for one line of a terminal or log: every C0 control character, DEL and
/// C1 control (U+0080-U+009F) written as \u00XX, so that a key or name from a
/// snapshot cannot end the line and forge the next one ("error: ...").
std::string one_line(std::string_view text);

/// The n decimal digits at text[pos] as a number; false when any is missing or not a digit.
bool read_digits(std::string_view text, std::size_t pos, std::size_t n, int& out);

/// Lower-case hex of bytes (digests, MACs).
std::string hex_lower(const unsigned char* bytes, std::size_t size);

}  // namespace tw
