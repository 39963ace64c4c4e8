#include "optimize/wr_recurrence.h"

#include <algorithm>
#include <functional>
#include <limits>
#include <map>
#include <tuple>
#include <utility>

namespace ucudnn::optimize {
namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();

// The scan by size takes each block's least sum in independent lanes with fixed trip counts:
// what the compiler vectorises at -O2, and 4 lanes keep two SSE registers busy.
constexpr int kLanes = 4;
constexpr int kBlock = 32;
// The scan by size reads every j < b, the scan in order every candidate but at several times the
// cost per step: at a batch of 65,536 the two take as long with one candidate per 8 sizes.
constexpr long long kBySizeShare = 8;

bool irregular(double cost) { return !(cost >= 0.0); }

// The least of prev[j] + cost[j] over one block.
double block_least(const double* prev, const double* cost) {
  double lane[kLanes];
  for (double& least : lane) least = kInfinity;
  for (int j = 0; j < kBlock; j += kLanes) {
    for (int l = 0; l < kLanes; ++l) {
      const double t = prev[j + l] + cost[j + l];
      lane[l] = t < lane[l] ? t : lane[l];
    }
  }
  double least = lane[0];
  for (int l = 1; l < kLanes; ++l) least = lane[l] < least ? lane[l] : least;
  return least;
}

}  // namespace

WrRecurrence::WrRecurrence(int batch, std::vector<int> sizes)
    : batch_(std::max(batch, 0)),
      size_(std::move(sizes)),
      cost_(size_.size(), kInfinity),
      usable_(size_.size(), 0),
      cost_from_largest_(batch_, kInfinity),
      candidate_from_largest_(batch_, -1),
      time_(batch_ + 1, kInfinity),
      calls_(batch_ + 1, 0),
      last_(batch_ + 1, -1),
      block_least_(batch_ / kBlock + 1) {
  time_[0] = 0.0;
  for (int i = 0; i < static_cast<int>(size_.size()); ++i) {
    const int size = size_[i];
    if (size <= 0 || size > batch_) continue;
    ++sized_candidates_;
    int& slot = candidate_from_largest_[batch_ - size];
    if (slot >= 0) one_per_size_ = false;
    slot = i;
  }
}

void WrRecurrence::set_cost(int candidate, double cost) {
  if (usable_[candidate] && irregular(cost_[candidate])) --irregular_costs_;
  if (irregular(cost)) ++irregular_costs_;
  usable_[candidate] = 1;
  cost_[candidate] = cost;
  const int size = size_[candidate];
  if (one_per_size_ && size > 0 && size <= batch_) cost_from_largest_[batch_ - size] = cost;
}

bool WrRecurrence::reachable(int b) const { return time_[b] != kInfinity; }

bool WrRecurrence::by_size() const {
  return one_per_size_ && irregular_costs_ == 0 && sized_candidates_ * kBySizeShare >= batch_;
}

void WrRecurrence::solve_from(int from) {
  const bool sized = by_size();
  for (int b = std::max(from, 1); b <= batch_; ++b) {
    time_[b] = kInfinity;
    calls_[b] = 0;
    last_[b] = -1;
    if (sized) {
      solve_by_size(b);
    } else {
      solve_by_candidate(b);
    }
  }
}

// Every candidate in order; a later one replaces the choice only when strictly better.
void WrRecurrence::solve_by_candidate(int b) {
  for (int i = 0; i < static_cast<int>(size_.size()); ++i) {
    const int size = size_[i];
    if (!usable_[i] || size <= 0 || size > b || time_[b - size] == kInfinity) continue;
    const double t = time_[b - size] + cost_[i];
    const int n = calls_[b - size] + 1;
    if (std::tie(t, n) < std::tie(time_[b], calls_[b])) {
      time_[b] = t;
      calls_[b] = n;
      last_[b] = i;
    }
  }
}

// The least sum first, block by block; then, in the blocks that reach it, the position with the
// fewest calls and the earliest candidate: the choice of solve_by_candidate, as no sum is NaN.
// Sizes without a usable candidate cost +infinity, so they never reach a finite least.
void WrRecurrence::solve_by_size(int b) {
  const double* prev = time_.data();
  const int offset = batch_ - b;  // prev[j] pairs with size b - j, at offset + j
  const double* cost = cost_from_largest_.data() + offset;
  const int blocks = b / kBlock;
  double least = kInfinity;
  for (int k = 0; k < blocks; ++k) {
    block_least_[k] = block_least(prev + k * kBlock, cost + k * kBlock);
    least = std::min(least, block_least_[k]);
  }
  for (int j = blocks * kBlock; j < b; ++j) least = std::min(least, prev[j] + cost[j]);
  if (least == kInfinity) return;

  auto choose_among = [&](int begin, int end) {
    for (int j = begin; j < end; ++j) {
      const double t = prev[j] + cost[j];
      if (t != least) continue;
      const int n = calls_[j] + 1;
      const int candidate = candidate_from_largest_[offset + j];
      if (last_[b] < 0 || std::tie(n, candidate) < std::tie(calls_[b], last_[b])) {
        time_[b] = t;
        calls_[b] = n;
        last_[b] = candidate;
      }
    }
  };
  for (int k = 0; k < blocks; ++k) {
    if (block_least_[k] == least) choose_among(k * kBlock, (k + 1) * kBlock);
  }
  choose_among(blocks * kBlock, b);
}

MicroBatchSplit split_of(const WrRecurrence& program, const std::vector<const Measurement*>& rows,
                         CallPricing pricing) {
  // Walk back through the choices and group equal micro-kernels: larger sizes first.
  std::map<std::pair<int, Candidate>, MicroBatchRun, std::greater<>> grouped;
  for (int b = program.batch(); b > 0; b -= rows[program.last(b)]->micro_batch) {
    const Measurement& m = *rows[program.last(b)];
    ++grouped.try_emplace({m.micro_batch, m.candidate}, MicroBatchRun::of(m, 0, pricing)).first->second.count;
  }

  MicroBatchSplit plan;
  plan.batch = program.batch();
  for (const auto& entry : grouped) {
    plan.runs.push_back(entry.second);
    plan.time_ms += entry.second.call_ms * entry.second.count;
    plan.workspace_bytes = std::max(plan.workspace_bytes, entry.second.row.workspace_bytes);
  }
  return plan;
}

}  // namespace ucudnn::optimize
