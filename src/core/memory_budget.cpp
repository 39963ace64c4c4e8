#include "core/memory_budget.h"

#include <algorithm>
#include <cctype>

#include "core/spelling.h"
#include "core/units.h"

namespace ucudnn {

Expected<MemoryBudget> parse_memory_budget(const std::string& text) {
  static const Spelling<MemoryBudget::Kind> kWords[] = {{"free", MemoryBudget::Kind::kFree},
                                                        {"off", MemoryBudget::Kind::kOff}};
  if (const auto word = find_spelling<MemoryBudget::Kind>(text, kWords)) return MemoryBudget{*word, 0};
  const Expected<std::size_t> bytes = parse_byte_size(text);
  if (!bytes) return Error::invalid("'" + text + "' is not free, off or a size (" + bytes.message() + ")");
  if (*bytes == 0) return Error::invalid("a budget of 0 bytes leaves no plan any memory: give free, off or a size");
  return MemoryBudget{MemoryBudget::Kind::kSize, *bytes};
}

std::string to_string(const MemoryBudget& budget) {
  switch (budget.kind) {
    case MemoryBudget::Kind::kFree: return "free";
    case MemoryBudget::Kind::kOff: return "off";
    case MemoryBudget::Kind::kSize: break;
  }
  return format_byte_size(budget.bytes);
}

BudgetLimits budget_limits(const MemoryBudget& budget, std::size_t in_use_at_creation, const DeviceMemory& now) {
  const std::size_t whole = budget.kind == MemoryBudget::Kind::kSize ? budget.bytes : now.total;
  auto left = [whole](std::size_t in_use) { return whole > in_use ? whole - in_use : 0; };
  BudgetLimits limits;
  limits.keep_within = left(in_use_at_creation);
  limits.plan_under = power_of_two_floor(std::min({left(now.in_use()), now.free, limits.keep_within}));
  limits.reachable = power_of_two_floor(std::min(now.free, limits.keep_within));
  return limits;
}

std::size_t InUseAtHandleCreation::record(int device, std::size_t in_use) {
  std::lock_guard<std::mutex> lock(mutex_);
  const auto [at, inserted] = lowest_.try_emplace(device, in_use);
  if (!inserted) at->second = std::min(at->second, in_use);
  return at->second;
}

std::size_t InUseAtHandleCreation::lowest(int device) const {
  std::lock_guard<std::mutex> lock(mutex_);
  const auto at = lowest_.find(device);
  return at == lowest_.end() ? 0 : at->second;
}

InUseAtHandleCreation& in_use_at_handle_creation() {
  static InUseAtHandleCreation record;
  return record;
}

std::size_t power_of_two_floor(std::size_t bytes) {
  if (bytes == 0) return 0;
  std::size_t power = 1;
  while (power <= bytes / 2) power *= 2;
  return power;
}

}  // namespace ucudnn
