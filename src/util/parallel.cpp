#include "tagwarden/util/parallel.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace tw {

void run_parallel(std::size_t n, std::size_t workers, const std::function<void(std::size_t)>& job) {
  std::atomic<std::size_t> next{0};
  std::exception_ptr failure;
  std::mutex failure_mu;
  auto work = [&] {
    for (std::size_t i = next++; i < n; i = next++) {
      try {
        job(i);
      } catch (...) {
        std::lock_guard lock(failure_mu);
        if (!failure) failure = std::current_exception();
      }
    }
  };
  {
    std::vector<std::jthread> helpers;
    for (std::size_t k = 1; k < std::min(workers, n); ++k) helpers.emplace_back(work);
    work();
  }  // joins
  if (failure) std::rethrow_exception(failure);
}

std::size_t default_workers(std::size_t n) {
  const std::size_t hw = std::max(1U, std::thread::hardware_concurrency());
  return std::max<std::size_t>(1, std::min(n, hw));
}

}  // namespace tw
