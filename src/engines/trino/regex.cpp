#include <algorithm>
#include <string_view>

#include "tagwarden/engines/trino/rules.h"

namespace tw::trino {

namespace {

bool plain(unsigned char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c >= 0x80;  // UTF-8 bytes of non-ASCII characters are never syntax
}

}  // namespace

// Runs of plain bytes are appended whole: at scale this is called on hundreds of megabytes.
void append_regex_literal(std::string& out, std::string_view text) {
  std::size_t from = 0;
  for (std::size_t k = 0; k < text.size(); ++k) {
    if (plain(static_cast<unsigned char>(text[k]))) continue;
    // In java.util.regex a backslash before any ASCII character that is not a
    // letter or digit always means that character literally.
    out.append(text.data() + from, k - from);
    out += '\\';
    from = k;
  }
  out.append(text.data() + from, text.size() - from);
}

std::string regex_literal(std::string_view text) {
  std::string out;
  out.reserve(text.size() * 2);
  append_regex_literal(out, text);
  return out;
}

namespace {

std::size_t code_point_length(unsigned char lead) {
  if (lead < 0x80) return 1;
  if ((lead >> 5) == 0x6) return 2;
  if ((lead >> 4) == 0xE) return 3;
  if ((lead >> 3) == 0x1E) return 4;
  return 1;  // a stray byte stands for itself
}

// The code point of `name` starting at byte `at` (shorter when the name ends inside it).
std::string_view unit_at(std::string_view name, std::size_t at) {
  return name.substr(at, std::min(code_point_length(static_cast<unsigned char>(name[at])), name.size() - at));
}

// Byte by byte: these are one to four bytes long, and a memcmp call per character was a
// tenth of rendering a large document.
bool same_unit(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t k = 0; k < a.size(); ++k) {
    if (a[k] != b[k]) return false;
  }
  return true;
}

// Names as a trie over code points (never splitting a UTF-8 sequence), so the
// alternation shares prefixes: shorter to write, and Java's matcher tries a
// handful of branches per character instead of every name in turn. The trie is
// walked over the sorted names, whose ranges are its nodes: [lo, hi) share the
// first `depth` bytes, and none of them ends there. An ASCII byte is a whole code
// point, so names are compared a byte at a time until a non-ASCII one, whose code
// point is compared whole.
void alternatives(const std::vector<std::string_view>& names, std::size_t lo, std::size_t hi, std::size_t depth,
                  std::string& out) {
  bool first = true;
  for (std::size_t i = lo; i < hi;) {
    const std::string_view name = names[i];
    std::size_t j = i + 1;
    if (static_cast<unsigned char>(name[depth]) < 0x80) {
      while (j < hi && names[j][depth] == name[depth]) ++j;
    } else {
      const std::string_view unit = unit_at(name, depth);
      while (j < hi && same_unit(unit_at(names[j], depth), unit)) ++j;
    }
    if (!first) out += '|';
    first = false;
    // This branch's first code point, then a chain of single children, as one literal.
    const std::string_view last = names[j - 1];  // sorted: first and last agree only if all do
    std::size_t at = depth + unit_at(name, depth).size();
    while (at < name.size()) {
      if (static_cast<unsigned char>(name[at]) < 0x80) {
        if (at >= last.size() || last[at] != name[at]) break;
        ++at;
        continue;
      }
      const std::string_view next = unit_at(name, at);
      if (!same_unit(unit_at(last, at), next)) break;
      at += next.size();
    }
    append_regex_literal(out, name.substr(depth, at - depth));
    const bool terminal = name.size() == at;
    const std::size_t k = terminal ? i + 1 : i;
    if (k < j) {
      out += "(?:";
      alternatives(names, k, j, at, out);
      out += terminal ? ")?" : ")";
    }
    i = j;
  }
}

}  // namespace

std::string exact_alternation(std::vector<std::string> names) {
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  return exact_alternation_sorted(std::vector<std::string_view>(names.begin(), names.end()));
}

std::string exact_alternation_sorted(const std::vector<std::string_view>& names) {
  const bool empty_name = !names.empty() && names.front().empty();
  std::string out = "^(?:";
  alternatives(names, empty_name ? 1 : 0, names.size(), 0, out);
  if (empty_name) out += "|";  // the empty name
  return out + ")$";
}

}  // namespace tw::trino
