// The GPU benchmark's planning of each side, and the time it takes.
#include "benchmark_planning.h"

#include <chrono>

namespace bench {
namespace {

// Plain cuDNN as frameworks use it: the fastest Find result within the limit.
int plain_choice(cudnnHandle_t h, const Layer& l, int op, size_t limit, size_t* ws, int* math_type) {
  int returned = 0;
  auto pick = [&](auto* results) {
    for (int i = 0; i < returned; ++i) {
      if (results[i].status == CUDNN_STATUS_SUCCESS && results[i].memory <= limit) {
        *ws = results[i].memory;
        *math_type = results[i].mathType;
        return static_cast<int>(results[i].algo);
      }
    }
    return -1;
  };
  if (op == 0) {
    cudnnConvolutionFwdAlgoPerf_t r[16];
    check(cudnnFindConvolutionForwardAlgorithm(h, l.x, l.w, l.conv, l.y, 16, &returned, r), "find fwd");
    return pick(r);
  }
  if (op == 1) {
    cudnnConvolutionBwdDataAlgoPerf_t r[16];
    check(cudnnFindConvolutionBackwardDataAlgorithm(h, l.w, l.y, l.conv, l.x, 16, &returned, r), "find bwdd");
    return pick(r);
  }
  cudnnConvolutionBwdFilterAlgoPerf_t r[16];
  check(cudnnFindConvolutionBackwardFilterAlgorithm(h, l.x, l.y, l.conv, l.w, 16, &returned, r), "find bwdf");
  return pick(r);
}

double seconds_since(std::chrono::steady_clock::time_point started) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
}

UcudnnSearchStatistics search_statistics() {
  UcudnnSearchStatistics s{};
  s.structSize = sizeof s;
  check(ucudnnGetSearchStatistics(&s), "search statistics");
  return s;
}

}  // namespace

void accumulate_search(UcudnnSearchPhases* total, const UcudnnSearchPhases& part, int sign) {
  // Every field: a field added to the struct is one entry here.
  using P = UcudnnSearchPhases;
  static constexpr double P::*kSeconds[] = {&P::setupSeconds,     &P::heuristicsSeconds, &P::findSeconds,
                                            &P::planBuildSeconds, &P::timingSeconds,     &P::databaseSeconds};
  static constexpr long long P::*kCounts[] = {&P::plansBuilt, &P::timedInFull,   &P::cutShort,
                                              &P::notTimed,   &P::sizesMeasured, &P::sizesSkipped};
  for (const auto field : kSeconds) total->*field += sign * part.*field;
  for (const auto field : kCounts) total->*field += sign * part.*field;
}

void plan_plain(Side* side, const std::vector<Layer>& layers,
                const std::vector<ucudnn::tools::NetworkKernel>& kernels) {
  const auto started = std::chrono::steady_clock::now();
  for (const ucudnn::tools::NetworkKernel& nk : kernels) {
    const Layer& l = layers[nk.layer];
    Kernel k;
    k.layer = nk.layer;
    k.op = static_cast<int>(nk.op);
    k.algo = plain_choice(side->plain, l, k.op, side->limit, &k.workspace, &k.math_type);
    if (k.algo < 0) fail(l.spec.name + " " + kOpNames[k.op] + ": plain cuDNN has no algorithm within the limit");
    // As PyTorch does: the chosen result's math type on the convolution it runs.
    k.conv.reset(make_conv(l.spec, static_cast<cudnnMathType_t>(k.math_type)));
    side->kernels.push_back(std::move(k));
  }
  side->planning_seconds = seconds_since(started);
}

void plan_ucudnn(Side* side, const std::vector<Layer>& layers,
                 const std::vector<ucudnn::tools::NetworkKernel>& kernels) {
  UcudnnStatistics before{};
  check(ucudnnGetStatistics(&before), "statistics");
  const auto started = std::chrono::steady_clock::now();
  for (const ucudnn::tools::NetworkKernel& nk : kernels) {
    Kernel k;
    k.layer = nk.layer;
    k.op = static_cast<int>(nk.op);
    const UcudnnSearchStatistics searched_before = search_statistics();
    const auto kernel_started = std::chrono::steady_clock::now();
    k.algo = ucudnn_choice(side->handle, layers[nk.layer], k.op, &k.workspace);
    k.planning_seconds = seconds_since(kernel_started);
    k.search = search_statistics().op[k.op];
    accumulate_search(&k.search, searched_before.op[k.op], -1);  // what this kernel's planning added
    side->kernels.push_back(std::move(k));
  }
  if (side->total_workspace > 0) {
    check(ucudnnOptimize(side->handle), "optimize");  // WD: one division for all kernels
    check(ucudnnGetWorkspaceDivisionInfo(side->handle, &side->division), "division info");
  }
  for (Kernel& k : side->kernels) {
    const Layer& l = layers[k.layer];
    check(ucudnnGetPlan(side->handle, static_cast<UcudnnConvolutionOp_t>(k.op), l.x, l.w, l.conv, l.y,
                        UCUDNN_WORKSPACE_LIMIT_DEFAULT, &k.plan),
          "plan");
    if (!k.plan.runs.empty()) k.math_type = k.plan.runs.front().mathType;
  }
  side->planning_seconds = seconds_since(started);
  UcudnnStatistics after{};
  check(ucudnnGetStatistics(&after), "statistics");
  side->solve_seconds = after.divisionSeconds - before.divisionSeconds;
  for (int op = 0; op < 3; ++op) {
    side->benchmark_seconds += after.op[op].benchmarkSeconds - before.op[op].benchmarkSeconds;
    side->solve_seconds += after.op[op].solveSeconds - before.op[op].solveSeconds;
  }
}

}  // namespace bench
