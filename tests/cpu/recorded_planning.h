#pragma once
// What the plan builder's tests over the recorded source share: the names they plan with, and the
// settings the recorded tables answer for.

#include <cstddef>

#include "recorded_source.h"
#include "runtime/plan_builder.h"
#include "store/database.h"
#include "test_helpers.h"

namespace ucudnn::testing {
using runtime::ExecutablePlan;
using runtime::PlanBuilder;
using runtime::plannable_sizes;
using store::BenchmarkDatabase;

inline constexpr std::size_t kMiB = std::size_t{1} << 20;
inline constexpr BatchSizePolicy kPolicy = BatchSizePolicy::kPowerOfTwo;
/// The recorded tables hold legacy rows; engine planning has its own tests.
inline constexpr CandidateSet kCandidates = CandidateSet::kLegacy;
}  // namespace ucudnn::testing
