#include "tagwarden/model/snapshot_loader.h"

#include <simdjson.h>

#include <array>
#include <optional>

#include "snapshot_reuse.h"
#include "tagwarden/model/document.h"
#include "tagwarden/model/object_digest.h"

namespace tw {

namespace {

constexpr std::array<std::string_view, 9> kTopKeys = {"version", "generated_at",     "users",
                                                      "roles",   "role_assignments", "classifications",
                                                      "objects", "grants",           "policies"};
// The lists whose entries are matched against the last valid snapshot, by index into Layout::entries.
constexpr std::array<std::string_view, 3> kEntryLists = {"users", "role_assignments", "objects"};

constexpr std::size_t kObjects = 2;  // index of "objects" in kEntryLists

int entry_list(std::string_view key) {
  for (std::size_t i = 0; i < kEntryLists.size(); ++i) {
    if (kEntryLists[i] == key) return static_cast<int>(i);
  }
  return -1;
}

}  // namespace

// Where a JSON snapshot's parts are in its text, found by simdjson's On-Demand reader, which does
// not validate what it skips: every byte is still judged, either as an entry byte for byte equal
// to one the full reader accepted, or by the full reader (the skeleton and the fresh entries).
struct SnapshotLoader::Layout {
  const char* base = nullptr;
  /// The top-level members in document order: (key, raw value); the value is empty for the entry lists.
  std::vector<std::pair<std::string_view, std::string_view>> members;
  std::array<std::vector<std::string_view>, kEntryLists.size()> entries;
};

// Entries are matched in order first: a change edits, adds or removes a few entries and leaves
// the rest where they were, so each entry is compared with the one after the last match, and only
// an entry that is not there is looked up. Hashing every entry of both texts into an index on
// every read was a fifth of a daemon pass's parse at M; the index is built only when looked up.
struct SnapshotLoader::Base {
  std::string text;  ///< the last valid snapshot's text, padded for simdjson
  std::shared_ptr<const Snapshot> snapshot;
  /// Per entry list: each entry's text (in `text`), in order; entry i is the snapshot's i-th.
  std::array<std::vector<std::string_view>, kEntryLists.size()> entries;
  /// Per entry list: entry text -> its first index, made on the first lookup.
  std::array<std::optional<std::unordered_map<std::string_view, std::size_t>>, kEntryLists.size()> index;

  /// The index of an entry of list `l` with this text, or ReusePlan::kFresh.
  std::size_t find(std::size_t l, std::string_view entry) {
    auto& map = index[l];
    if (!map) {
      map.emplace();
      map->reserve(entries[l].size());
      for (std::size_t i = 0; i < entries[l].size(); ++i) map->emplace(entries[l][i], i);
    }
    const auto it = map->find(entry);
    return it == map->end() ? ReusePlan::kFresh : it->second;
  }
};

struct SnapshotLoader::Reader {
  simdjson::ondemand::parser parser;
};

SnapshotLoader::SnapshotLoader() : reader_(std::make_unique<Reader>()) {}
SnapshotLoader::~SnapshotLoader() = default;

namespace {

// nullopt for anything the full reader is left to judge (and to explain): YAML, a NUL byte, a
// top level that is not a mapping of known keys each given once, an entry list that is not a
// list of mappings, text after the document.
std::optional<std::vector<std::pair<std::string_view, std::string_view>>> top_members(
    simdjson::ondemand::parser& parser, const std::string& padded,
    std::array<std::vector<std::string_view>, kEntryLists.size()>& entries) {
  namespace od = simdjson::ondemand;
  if (padded.find('\0') != std::string::npos) return std::nullopt;
  const std::size_t first = padded.find_first_not_of(" \t\r\n");
  if (first == std::string::npos || padded[first] != '{') return std::nullopt;
  od::document doc;
  if (parser.iterate(padded.data(), padded.size(), padded.capacity()).get(doc)) return std::nullopt;
  od::object root;
  if (doc.get_object().get(root)) return std::nullopt;
  std::vector<std::pair<std::string_view, std::string_view>> members;
  std::array<bool, kTopKeys.size()> seen{};
  for (auto member : root) {
    od::field field;
    if (std::move(member).get(field)) return std::nullopt;
    std::string_view key;
    if (field.unescaped_key().get(key)) return std::nullopt;
    std::size_t k = 0;
    while (k < kTopKeys.size() && kTopKeys[k] != key) ++k;
    if (k == kTopKeys.size() || seen[k]) return std::nullopt;
    seen[k] = true;
    key = kTopKeys[k];  // unescaped_key() points into the parser's buffer
    od::value value = field.value();
    if (const int list = entry_list(key); list >= 0) {
      od::array array;
      if (value.get_array().get(array)) return std::nullopt;
      auto& out = entries[static_cast<std::size_t>(list)];
      for (auto element : array) {
        od::object entry;
        std::string_view raw;
        if (element.get_object().get(entry) || entry.raw_json().get(raw)) return std::nullopt;
        // The span runs to the next token: blanks after the last entry are not part of it.
        while (!raw.empty() && (raw.back() == ' ' || raw.back() == '\n' || raw.back() == '\r' || raw.back() == '\t'))
          raw.remove_suffix(1);
        out.push_back(raw);
      }
      members.emplace_back(key, std::string_view());
      continue;
    }
    od::json_type type;
    if (value.type().get(type)) return std::nullopt;
    std::string_view raw;
    if (type == od::json_type::object) {
      od::object o;
      if (value.get_object().get(o) || o.raw_json().get(raw)) return std::nullopt;
    } else if (type == od::json_type::array) {
      od::array a;
      if (value.get_array().get(a) || a.raw_json().get(raw)) return std::nullopt;
    } else {
      raw = value.raw_json_token();
      // A scalar is one token, and the member ends right after it. The iterator, skipping the
      // unread scalar, would take a string followed by ':' for a key and skip its "value" too:
      // bytes neither the skeleton nor the full reader would then judge.
      const char* next = raw.data() + raw.size();
      if (next >= padded.data() + padded.size() || (*next != ',' && *next != '}')) return std::nullopt;
    }
    members.emplace_back(key, raw);
  }
  // Past the document, only blanks: a location inside the text is something after the mapping.
  const char* after = nullptr;
  if (!doc.current_location().get(after)) return std::nullopt;
  return members;
}

}  // namespace

const std::size_t SnapshotLoader::kSpareCapacity = simdjson::SIMDJSON_PADDING;

SnapshotLoader::Result SnapshotLoader::load(std::string_view text) {
  std::string padded;
  padded.reserve(text.size() + kSpareCapacity);
  padded.assign(text);
  return load(std::move(padded));
}

SnapshotLoader::Result SnapshotLoader::load(std::string&& owned) {
  std::string padded = std::move(owned);
  if (padded.capacity() < padded.size() + kSpareCapacity) padded.reserve(padded.size() + kSpareCapacity);
  const std::string_view text = padded;  // the string's buffer moves with it into the base
  Layout layout;
  std::optional<Layout> found;
  if (auto members = top_members(reader_->parser, padded, layout.entries)) {
    layout.base = padded.data();
    layout.members = std::move(*members);
    found = std::move(layout);
  }
  if (base_ && found) {
    Result r = read_against_base(found.value());
    if (r.snapshot) {
      remember(std::move(padded), &*found, r.snapshot, r.retired);
      return r;
    }
  }
  Result r;
  SnapshotLoad full = parse_snapshot(text);
  if (!full.snapshot) {
    r.errors = std::move(full.errors);
    return r;
  }
  if (found && found->entries[kObjects].size() == full.snapshot->objects.size()) {
    auto& digests = full.snapshot->object_entry_digests;
    digests.reserve(found->entries[kObjects].size());
    for (const Object& o : full.snapshot->objects) digests.push_back(object_content_digest(o));
  }
  r.snapshot = std::make_shared<const Snapshot>(std::move(*full.snapshot));
  r.read_entries = r.snapshot->users.size() + r.snapshot->role_assignments.size() + r.snapshot->objects.size();
  remember(std::move(padded), found ? &*found : nullptr, r.snapshot, r.retired);
  return r;
}

void SnapshotLoader::reset() { base_.reset(); }

SnapshotLoader::Result SnapshotLoader::read_against_base(const Layout& layout) {
  Result r;
  ReusePlan plan;
  plan.previous = base_->snapshot.get();
  std::array<ReusePlan::Section*, kEntryLists.size()> sections = {&plan.users, &plan.role_assignments, &plan.objects};
  std::array<std::string, kEntryLists.size()> fresh_text;
  std::string skeleton = "{";
  for (const auto& [key, raw] : layout.members) {
    if (skeleton.size() > 1) skeleton += ',';
    skeleton += '"';
    skeleton += key;
    skeleton += "\":";
    const int list = entry_list(key);
    if (list < 0) {
      skeleton += raw;
      continue;
    }
    skeleton += "[]";
    const auto l = static_cast<std::size_t>(list);
    ReusePlan::Section& section = *sections[l];
    section.slots.reserve(layout.entries[l].size());
    const std::vector<std::string_view>& before = base_->entries[l];
    const std::vector<std::string_view>& now = layout.entries[l];
    const auto before_at = [&before](std::size_t k, std::string_view e) { return k < before.size() && before[k] == e; };
    std::size_t next = 0;  // in the last text, where the entry after the last one taken was
    for (std::size_t i = 0; i < now.size(); ++i) {
      const std::string_view entry = now[i];
      std::size_t slot = ReusePlan::kFresh;
      const bool last = i + 1 == now.size();
      if (before_at(next, entry)) {
        slot = next;
      } else if (before_at(next + 1, entry)) {
        slot = next + 1;  // one entry removed
      } else if (last ? next >= before.size() : before_at(next + 1, now[i + 1])) {
        ++next;  // edited in place, or added after every entry the last text had: read afresh
      } else if (!last && before_at(next, now[i + 1])) {
        // added: read afresh, and the next entry is the one expected here
      } else {
        slot = base_->find(l, entry);  // entries were moved, or several added or removed here
        if (slot == ReusePlan::kFresh) ++next;
      }
      if (slot != ReusePlan::kFresh) {
        next = slot + 1;
        section.slots.push_back(slot);
        ++r.reused_entries;
      } else {
        section.slots.push_back(ReusePlan::kFresh);
        fresh_text[l] += fresh_text[l].empty() ? '[' : ',';
        fresh_text[l] += entry;
        ++r.read_entries;
      }
    }
  }
  skeleton += '}';
  const DocumentParse doc = parse_document(skeleton);
  if (!doc.errors.empty()) return {};
  std::array<DocumentParse, kEntryLists.size()> fresh;
  for (std::size_t l = 0; l < kEntryLists.size(); ++l) {
    if (fresh_text[l].empty()) continue;
    fresh_text[l] += ']';
    fresh[l] = parse_document(fresh_text[l]);
    if (!fresh[l].errors.empty()) return {};
    sections[l]->fresh = fresh[l].value();
  }
  SnapshotLoad loaded = validate_snapshot(doc.value(), &plan);
  if (!loaded.snapshot) return {};
  // Valid, so each entry is one object, in document order.
  const std::vector<std::string>& before = base_->snapshot->object_entry_digests;
  auto& digests = loaded.snapshot->object_entry_digests;
  digests.reserve(plan.objects.slots.size());
  for (std::size_t i = 0; i < plan.objects.slots.size(); ++i) {
    const std::size_t slot = plan.objects.slots[i];
    digests.push_back(slot != ReusePlan::kFresh && slot < before.size()
                          ? before[slot]
                          : object_content_digest(loaded.snapshot->objects[i]));
  }
  r.snapshot = std::make_shared<const Snapshot>(std::move(*loaded.snapshot));
  r.incremental = true;
  return r;
}

void SnapshotLoader::remember(std::string&& padded, const Layout* layout, std::shared_ptr<const Snapshot> snapshot,
                              std::shared_ptr<const void>& retired) {
  if (base_) retired = std::shared_ptr<const Base>(std::move(base_));
  if (!layout) {
    base_.reset();  // not JSON the reader can lay out: the next text is read whole
    return;
  }
  auto base = std::make_unique<Base>();
  base->text = std::move(padded);
  base->snapshot = std::move(snapshot);
  const std::array<std::size_t, kEntryLists.size()> sizes = {
      base->snapshot->users.size(), base->snapshot->role_assignments.size(), base->snapshot->objects.size()};
  for (std::size_t l = 0; l < kEntryLists.size(); ++l) {
    const auto& entries = layout->entries[l];
    if (entries.size() != sizes[l]) {  // each entry is one value of a valid snapshot; never expected
      base_.reset();
      return;
    }
    base->entries[l].reserve(entries.size());
    for (const std::string_view entry : entries) {
      // The text moved with the string; the entry is at the same offset.
      base->entries[l].emplace_back(base->text.data() + (entry.data() - layout->base), entry.size());
    }
  }
  base_ = std::move(base);
}

}  // namespace tw
