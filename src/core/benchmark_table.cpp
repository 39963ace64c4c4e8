#include "core/benchmark_table.h"

#include <algorithm>

namespace ucudnn {

std::optional<std::vector<Measurement>> BenchmarkTable::complete_rows(const ConvKey& micro_key, CandidateKind kind,
                                                                      std::size_t workspace_limit) const {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = entries_.find(micro_key);
  if (it == entries_.end()) return std::nullopt;
  const auto& entry = it->second.by_kind[static_cast<int>(kind)];
  if (!entry || entry->measured_up_to < workspace_limit) return std::nullopt;
  return entry->rows;
}

std::optional<BenchmarkTable::Entry> BenchmarkTable::entry(const ConvKey& micro_key, CandidateKind kind) const {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = entries_.find(micro_key);
  if (it == entries_.end()) return std::nullopt;
  return it->second.by_kind[static_cast<int>(kind)];
}

void BenchmarkTable::record(const ConvKey& micro_key, CandidateKind kind, std::size_t measured_up_to,
                            const std::vector<Measurement>& rows) {
  std::lock_guard<std::mutex> lock(mutex_);
  std::optional<Entry>& slot = entries_[micro_key].by_kind[static_cast<int>(kind)];
  if (!slot) slot.emplace();
  Entry& entry = *slot;
  for (const Measurement& row : rows) {
    auto same = std::find_if(entry.rows.begin(), entry.rows.end(),
                             [&](const Measurement& m) { return m.candidate == row.candidate; });
    if (same != entry.rows.end()) *same = row;
    else entry.rows.push_back(row);
  }
  entry.measured_up_to = std::max(entry.measured_up_to, measured_up_to);
}

std::size_t BenchmarkTable::size() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return entries_.size();
}

void BenchmarkTable::clear() {
  std::lock_guard<std::mutex> lock(mutex_);
  entries_.clear();
}

}  // namespace ucudnn
