#include <algorithm>

#include "tagwarden/engines/trino/rules.h"

namespace tw::trino {

std::string regex_literal(std::string_view text) {
  std::string out;
  out.reserve(text.size() * 2);
  for (char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    const bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
                       c >= 0x80;  // UTF-8 bytes of non-ASCII characters are never syntax
    // In java.util.regex a backslash before any ASCII character that is not a
    // letter or digit always means that character literally.
    if (!plain) out += '\\';
    out += ch;
  }
  return out;
}

std::string exact_alternation(std::vector<std::string> names) {
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  std::string out = "^(?:";
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (i) out += '|';
    out += regex_literal(names[i]);
  }
  out += ")$";
  return out;
}

}  // namespace tw::trino
