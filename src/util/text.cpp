#include "tagwarden/util/text.h"

#include <algorithm>
#include <cstdio>
#include <iterator>
#include <nlohmann/json.hpp>

namespace tw {

namespace {

// Java's lowercase, generated from the JDK Trino runs on (see the file's header to regenerate).
struct SimpleLowerRange {
  char32_t first;
  char32_t last;
  int stride;  // 1: every code point in [first, last]; 2: every other one (upper/lower pairs)
  int delta;   // lowercase = cp + delta
};
struct FullLower {
  char32_t cp;
  const char* utf8;  // String.toLowerCase(Locale.ENGLISH) of the lone code point
};
#include "java_lowercase_table.inc"

/// Character.toLowerCase(int).
char32_t simple_lower(char32_t cp) {
  const auto* it = std::upper_bound(std::begin(kSimpleLower), std::end(kSimpleLower), cp,
                                    [](char32_t c, const SimpleLowerRange& r) { return c < r.first; });
  if (it == std::begin(kSimpleLower)) return cp;
  --it;
  if (cp > it->last || (cp - it->first) % static_cast<char32_t>(it->stride) != 0) return cp;
  return static_cast<char32_t>(static_cast<int>(cp) + it->delta);
}

const char* full_lower(char32_t cp) {
  for (const auto& f : kFullLower) {
    if (f.cp == cp) return f.utf8;
  }
  return nullptr;
}

bool context_lower(char32_t cp) {
  return std::find(std::begin(kContextLower), std::end(kContextLower), cp) != std::end(kContextLower);
}

/// Decodes the well-formed UTF-8 sequence at text[i] (RFC 3629: no overlong forms, no surrogates,
/// nothing above U+10FFFF); 0 when there is none, else its length.
std::size_t decode_utf8(std::string_view text, std::size_t i, char32_t& cp) {
  const auto b = static_cast<unsigned char>(text[i]);
  if (b < 0x80) {
    cp = b;
    return 1;
  }
  const std::size_t len = (b & 0xE0) == 0xC0 ? 2 : (b & 0xF0) == 0xE0 ? 3 : (b & 0xF8) == 0xF0 ? 4 : 0;
  if (len == 0) return 0;
  static constexpr char32_t kMin[] = {0, 0, 0x80, 0x800, 0x10000};  // shortest form per length
  const char32_t min = kMin[len];
  cp = b & (0x7F >> len);
  if (i + len > text.size()) return 0;
  for (std::size_t k = 1; k < len; ++k) {
    const auto c = static_cast<unsigned char>(text[i + k]);
    if ((c & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (c & 0x3F);
  }
  if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
  return len;
}

void append_utf8(std::string& out, char32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

}  // namespace

std::string lowercase_identifier(std::string_view text) {
  bool ascii = true;
  for (unsigned char c : text) ascii = ascii && c < 0x80;
  std::string out(text);
  if (ascii) {
    for (char& c : out) {
      if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    }
    return out;
  }
  std::string result;
  result.reserve(text.size() + 1);
  for (std::size_t i = 0; i < text.size();) {
    char32_t cp = 0;
    const std::size_t len = decode_utf8(text, i, cp);
    if (len == 0) return out;  // invalid UTF-8: unchanged
    if (const char* full = full_lower(cp)) {
      result += full;
    } else {
      append_utf8(result, simple_lower(cp));
    }
    i += len;
  }
  return result;
}

bool has_context_dependent_lowercase(std::string_view text) {
  // Checked for every name of every object on every compile; names are mostly ASCII.
  if (std::all_of(text.begin(), text.end(), [](unsigned char c) { return c < 0x80; })) return false;
  for (std::size_t i = 0; i < text.size();) {
    char32_t cp = 0;
    const std::size_t len = decode_utf8(text, i, cp);
    if (len != 0 && context_lower(cp)) return true;
    i += len == 0 ? 1 : len;
  }
  return false;
}

std::string join_words(const std::vector<std::string>& items) {
  std::string out;
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (i > 0) out += i + 1 == items.size() ? " and " : ", ";
    out += items[i];
  }
  return out;
}

std::string join_some(const std::vector<std::string>& items, std::size_t limit) {
  if (items.size() <= limit) return join_words(items);
  std::vector<std::string> named(items.begin(), items.begin() + static_cast<std::ptrdiff_t>(limit));
  named.push_back(std::to_string(items.size() - limit) + " more");
  return join_words(named);
}

std::string quote(std::string_view text) {
  return nlohmann::json(std::string(text)).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::string one_line(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  const auto escape = [&](unsigned code) {
    char buf[8];
    std::snprintf(buf, sizeof buf, "\\u%04X", code);
    out += buf;
  };
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c < 0x20 || c == 0x7F) {
      escape(c);
    } else if (c == 0xC2 && i + 1 < text.size() && static_cast<unsigned char>(text[i + 1]) >= 0x80 &&
               static_cast<unsigned char>(text[i + 1]) <= 0x9F) {
      escape(static_cast<unsigned char>(text[++i]));  // U+0080-U+009F, encoded as C2 80-9F
    } else if (c == 0xE2 && i + 2 < text.size() && static_cast<unsigned char>(text[i + 1]) == 0x80 &&
               (static_cast<unsigned char>(text[i + 2]) == 0xA8 || static_cast<unsigned char>(text[i + 2]) == 0xA9)) {
      // U+2028 and U+2029, E2 80 A8-A9: line and paragraph separators that log viewers break lines at
      escape(0x2000u + static_cast<unsigned char>(text[i + 2]) - 0xA8u + 0x28u);
      i += 2;
    } else {
      out += text[i];
    }
  }
  return out;
}

std::string hex_lower(const unsigned char* bytes, std::size_t size) {
  static const char* digits = "0123456789abcdef";
  std::string out;
  out.reserve(size * 2);
  for (std::size_t i = 0; i < size; ++i) {
    out += digits[bytes[i] >> 4];
    out += digits[bytes[i] & 15];
  }
  return out;
}

bool read_digits(std::string_view text, std::size_t pos, std::size_t n, int& out) {
  if (pos + n > text.size()) return false;
  out = 0;
  for (std::size_t i = pos; i < pos + n; ++i) {
    if (text[i] < '0' || text[i] > '9') return false;
    out = out * 10 + (text[i] - '0');
  }
  return true;
}

}  // namespace tw
