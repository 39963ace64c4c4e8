#include "core/memory_budget.h"

#include <algorithm>
#include <cctype>

#include "core/units.h"

namespace ucudnn {

Expected<MemoryBudget> parse_memory_budget(const std::string& text) {
  std::string lower;
  for (unsigned char c : text) lower.push_back(static_cast<char>(std::tolower(c)));
  if (lower == "free") return MemoryBudget{MemoryBudget::Kind::kFree, 0};
  if (lower == "off") return MemoryBudget{MemoryBudget::Kind::kOff, 0};
  const Expected<std::size_t> bytes = parse_byte_size(text);
  if (!bytes) return Error{"'" + text + "' is not free, off or a size (" + bytes.message() + ")"};
  if (*bytes == 0) return Error{"a budget of 0 bytes leaves no plan any memory: give free, off or a size"};
  return MemoryBudget{MemoryBudget::Kind::kSize, *bytes};
}

std::string to_string(const MemoryBudget& budget) {
  switch (budget.kind) {
    case MemoryBudget::Kind::kFree:
      return "free";
    case MemoryBudget::Kind::kOff:
      return "off";
    case MemoryBudget::Kind::kSize:
      break;
  }
  return format_byte_size(budget.bytes);
}

std::size_t budget_available(const MemoryBudget& budget, std::size_t device_free, std::size_t device_total) {
  if (budget.kind != MemoryBudget::Kind::kSize) return device_free;
  const std::size_t in_use = device_total > device_free ? device_total - device_free : 0;
  const std::size_t left = budget.bytes > in_use ? budget.bytes - in_use : 0;
  return std::min(left, device_free);
}

std::size_t budget_planning_limit(std::size_t available) {
  if (available == 0) return 0;
  std::size_t power = 1;
  while (power <= available / 2) power *= 2;
  return power;
}

}  // namespace ucudnn
