#include <algorithm>
#include <map>
#include <string_view>

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

namespace {

// Names as a trie over code points (never splitting a UTF-8 sequence), so the
// alternation shares prefixes: shorter to write, and Java's matcher tries a
// handful of branches per character instead of every name in turn.
struct TrieNode {
  bool terminal = false;
  std::map<std::string, TrieNode> children;  // by code point, in byte order
};

std::size_t code_point_length(unsigned char lead) {
  if (lead < 0x80) return 1;
  if ((lead >> 5) == 0x6) return 2;
  if ((lead >> 4) == 0xE) return 3;
  if ((lead >> 3) == 0x1E) return 4;
  return 1;  // a stray byte stands for itself
}

void insert(TrieNode& root, std::string_view name) {
  TrieNode* node = &root;
  for (std::size_t i = 0; i < name.size();) {
    const std::size_t n = std::min(code_point_length(static_cast<unsigned char>(name[i])), name.size() - i);
    node = &node->children[std::string(name.substr(i, n))];
    i += n;
  }
  node->terminal = true;
}

// The alternatives of a node's children, without a group around them.
std::string alternatives(const TrieNode& node) {
  std::string out;
  for (const auto& [unit, first] : node.children) {
    if (!out.empty()) out += '|';
    std::string label = regex_literal(unit);
    const TrieNode* child = &first;
    while (child->children.size() == 1 && !child->terminal) {
      label += regex_literal(child->children.begin()->first);
      child = &child->children.begin()->second;
    }
    out += label;
    if (child->children.empty()) continue;
    const std::string inner = alternatives(*child);
    if (child->terminal) {
      out += "(?:" + inner + ")?";
    } else {
      out += "(?:" + inner + ")";
    }
  }
  return out;
}

}  // namespace

std::string exact_alternation(std::vector<std::string> names) {
  TrieNode root;
  for (const auto& name : names) insert(root, name);
  std::string body = alternatives(root);
  if (root.terminal) body += "|";  // the empty name
  return "^(?:" + body + ")$";
}

}  // namespace tw::trino
