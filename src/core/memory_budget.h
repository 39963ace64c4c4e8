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

/// What a graph-API plan may take for workspace under `budget` (kFree or kSize), given the device's
/// free and total memory now.
std::size_t budget_available(const MemoryBudget& budget, std::size_t device_free, std::size_t device_total);

/// The limit ucudnn plans a plan that does not fit under: `available` rounded down to a power of
/// two, so that a kernel sized while memory comes and goes is planned at a few limits, not one
/// per byte (each limit is a plan, benchmarked once).
std::size_t budget_planning_limit(std::size_t available);

}  // namespace ucudnn
