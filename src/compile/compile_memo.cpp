#include "tagwarden/compile/compile_memo.h"

#include "tagwarden/util/digest.h"

namespace tw {

std::string CompileMemo::decisions_key() const {
  Digest d;
  d.add("tagwarden compile memo decisions 1").add(context).add(grants);
  d.add(create_restricted.size());
  for (std::size_t u : create_restricted) d.add(std::uint64_t(u));
  d.add(object_digests.size());
  for (const auto& o : object_digests) d.add(o);
  return d.finish();
}

}  // namespace tw
