#pragma once
// The memory a graph-API plan may take for its workspace (UCUDNN_MEMORY_BUDGET, `ucudnn run
// --memory-budget`). A graph-API plan names no workspace limit: the framework that built it
// allocates whatever the plan reports. So rather than a fixed cap, the plan is held to the memory
// the program can still take where it runs:
//   free  (the default) what is free on the device when the plan is first sized;
//   SIZE  the program's budget on the device (a framework's memory fraction, say): SIZE less the
//         memory in use on the device, and never more than is free;
//   off   the default workspace limit (UCUDNN_DEFAULT_WORKSPACE_LIMIT), a fixed cap, as before.
// A fixed UCUDNN_FORCE_WORKSPACE_LIMIT (`ucudnn run --workspace-limit`) overrides all three.

#include <cstddef>
#include <map>
#include <mutex>
#include <string>

#include "core/expected.h"

namespace ucudnn {

struct MemoryBudget {
  enum class Kind { kFree, kSize, kOff };
  Kind kind = Kind::kFree;
  std::size_t bytes = 0;  ///< kSize only
};

/// "free", "off" (case-insensitive) or a size as parse_byte_size reads it (0 refused: a budget of
/// nothing would leave no plan its workspace).
Expected<MemoryBudget> parse_memory_budget(const std::string& text);
std::string to_string(const MemoryBudget& budget);

/// The device's memory as cudaMemGetInfo reports it.
struct DeviceMemory {
  std::size_t free = 0;
  std::size_t total = 0;
  std::size_t in_use() const { return total > free ? total - free : 0; }
};

/// What a graph-API plan may take under a kFree or kSize budget (kFree: the whole device's
/// memory is the budget).
struct BudgetLimits {
  /// A plan the program built is kept unless its workspace exceeds this: what was left of the
  /// budget when the process's first handle on the device was made (InUseAtHandleCreation). Only
  /// a plan the framework could never fit is replaced, since the memory in use later counts the
  /// framework's cache, which it reuses for workspace: a plan kept that does not fit now is the
  /// framework's to drop, as it would without ucudnn.
  std::size_t keep_within = 0;
  /// A plan that is replaced is planned under what is left of the budget now (never more than is
  /// free), rounded down to a power of two: a kernel sized while memory comes and goes is planned
  /// at a few limits, not one per byte (each limit is a plan, benchmarked once).
  std::size_t plan_under = 0;
  /// The most the program may get for a workspace: keep_within (the framework's later tensors and
  /// cache not counted: it may free its cache for a workspace), but never more than the GPU has
  /// free now, rounded down to a power of two (the largest micro-batch offer's limit,
  /// api/graph/offer.h).
  std::size_t reachable = 0;
};
BudgetLimits budget_limits(const MemoryBudget& budget, std::size_t in_use_at_creation, const DeviceMemory& now);

/// The least device memory seen in use when a handle was made, per device, for the whole process:
/// the baseline a budget counts from (budget_limits' in_use_at_creation). Not each handle's own
/// moment: a framework makes its backward pass's handle on another thread at the peak of its
/// activations, which it frees as that pass goes on, so measured there the budget would call
/// plans "never fitting" that the framework fits later (PyTorch's backward handle: ResNet-50's
/// backward plans replaced at no workspace).
class InUseAtHandleCreation {
 public:
  /// Records `in_use` for `device`; returns the least recorded for it so far.
  std::size_t record(int device, std::size_t in_use);
  /// The least recorded for `device` (0 where none was: nothing counted as lost).
  std::size_t lowest(int device) const;

 private:
  mutable std::mutex mutex_;
  std::map<int, std::size_t> lowest_;
};

/// The process's record.
InUseAtHandleCreation& in_use_at_handle_creation();

/// `bytes` rounded down to a power of two (0 stays 0).
std::size_t power_of_two_floor(std::size_t bytes);

}  // namespace ucudnn
