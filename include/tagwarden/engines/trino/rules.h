#pragma once
// PolicySet -> Trino system file-based access control rules
// (access-control.name=file). Trino takes the first matching rule in each
// section and allows everything in a section that is absent, so every section
// we rely on is emitted and each ends in an explicit deny.

#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "tagwarden/compile/policy_set.h"
#include "tagwarden/util/recycled_text.h"
#include "tagwarden/util/resumed_sha256.h"

namespace tw::trino {

struct RulesDocument {
  std::string text;  ///< the bytes to serve or write; same PolicySet, same bytes
  std::size_t table_rules = 0;
  std::size_t object_rules = 0;  ///< rules naming listed objects (including their catch-all denies)
};

/// What rendering one profile leaves for the next render of the same profile: each
/// object's rules, each block's lines, the rules for unlisted names and the alternation
/// written for each user list, keyed by what they were made from (user lists by the
/// lists themselves, which it holds). The compile memo hands untouched objects their
/// previous lists, so after a small change most of the document is taken as it was.
/// Only a speed-up: the bytes are the same with or without it
/// (tests/unit/test_incremental.cpp). One render at a time per cache.
class RenderCache {
 public:
  RenderCache();
  ~RenderCache();
  struct State;
  std::unique_ptr<State> state;
  /// The documents' buffers: render_rules writes into one nobody reads any more, and the
  /// caller shares the text through it (render_artifact does).
  TextRecycler documents;
  /// SHA-256 of the documents, from where each first differs from the last one (render_artifact).
  ResumedSha256 digests;
};

/// Translates; decides nothing. Never returns an empty rules document.
RulesDocument render_rules(const PolicySet& ps, RenderCache* cache = nullptr);

/// A rules document that refuses every catalog and table: served when no good document exists.
RulesDocument deny_all_rules();

/// Whether `text` has the shape every rules document tagwarden writes has: a JSON object whose
/// catalogs rules end with one that allows no catalog, with schemas and tables rules present (an
/// absent section lets Trino allow everything it covers). A restored document that has not is
/// never served.
bool restorable_rules(const std::string& text);

/// The exact mask and filter expressions Trino will enforce for an access, for explain.
nlohmann::json enforced_expressions(const Access& access);

/// Escapes every character a Java regex could read as syntax.
std::string regex_literal(std::string_view text);
void append_regex_literal(std::string& out, std::string_view text);

/// ^(?:a|b|c)$ over escaped, sorted, de-duplicated names.
std::string exact_alternation(std::vector<std::string> names);
/// The same, for names already sorted (byte order) and de-duplicated.
std::string exact_alternation_sorted(const std::vector<std::string_view>& names);

}  // namespace tw::trino
