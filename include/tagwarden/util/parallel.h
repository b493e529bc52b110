#pragma once
// Runs independent jobs (one per profile) on a few threads. The results do not
// depend on the number of threads: each job writes only its own slot.

#include <cstddef>
#include <functional>

namespace tw {

/// Calls job(i) for every i < n on at most `workers` threads (the caller's included) and
/// returns when all are done. The first exception a job throws is rethrown here, after the
/// other jobs have finished.
void run_parallel(std::size_t n, std::size_t workers, const std::function<void(std::size_t)>& job);

/// Threads worth using for n jobs on this machine: min(n, hardware threads), at least 1.
std::size_t default_workers(std::size_t n);

}  // namespace tw
