#include "tagwarden/util/bit_count.h"

#include <bit>

namespace tw {

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
// One clone with POPCNT and one without, chosen once by the loader (GCC function multiversioning).
__attribute__((target_clones("popcnt", "default")))
#endif
std::size_t
count_bits(const std::uint64_t* bits, std::size_t words) {
  std::size_t count = 0;
  for (std::size_t w = 0; w < words; ++w) count += static_cast<std::size_t>(std::popcount(bits[w]));
  return count;
}

}  // namespace tw
