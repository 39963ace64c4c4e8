#include "tools/plan_report.h"

#include <algorithm>
#include <chrono>
#include <set>
#include <utility>

#include "core/units.h"
#include "optimize/pareto.h"

namespace ucudnn::tools {

double WrReport::total_time_ms() const {
  double total = 0.0;
  for (const auto& k : kernels) total += k.plan.time_ms;
  return total;
}

double WrReport::undivided_total_time_ms() const {
  double total = 0.0;
  for (const auto& k : kernels) total += k.undivided.cost_ms();
  return total;
}

std::optional<double> WdReport::undivided_total_time_ms() const {
  double total = 0.0;
  for (const auto& k : kernels) {
    if (!k.undivided) return std::nullopt;
    total += k.undivided->cost_ms();
  }
  return total;
}

namespace {

std::string kernel_name(const KernelMeasurements& kernel) {
  return "kernel " + kernel.layer + " " + short_name(kernel.op);
}

}  // namespace

Expected<std::vector<KernelMeasurements>> rows_of_candidates(std::vector<KernelMeasurements> kernels,
                                                             CandidateSet set) {
  for (auto& kernel : kernels) {
    auto& rows = kernel.rows;
    rows.erase(std::remove_if(rows.begin(), rows.end(),
                              [&](const Measurement& m) { return !includes(set, m.candidate.kind); }),
               rows.end());
    if (rows.empty()) {
      return Error::invalid(kernel_name(kernel) + ": no rows of the candidates '" + to_string(set) +
                            "' (see --candidates)");
    }
  }
  return kernels;
}

std::vector<int> measured_allowed_sizes(const KernelMeasurements& kernel, BatchSizePolicy policy) {
  std::set<int> measured;
  for (const auto& row : kernel.rows) measured.insert(row.micro_batch);
  std::vector<int> sizes;
  for (int size : allowed_micro_batch_sizes(policy, kernel.batch)) {
    if (measured.count(size) != 0) sizes.push_back(size);
  }
  return sizes;
}

Expected<WrReport> plan_workspace_reuse(const std::vector<KernelMeasurements>& kernels,
                                          BatchSizePolicy policy, std::size_t workspace_limit) {
  WrReport report;
  report.policy = policy;
  report.workspace_limit = workspace_limit;
  for (const auto& kernel : kernels) {
    const std::string name = kernel_name(kernel);
    const std::string limit = "the workspace limit of " + format_byte_size(workspace_limit);
    // Without an undivided baseline there is nothing to compare against; say so up front.
    const auto undivided = optimize::fastest_within(kernel.rows, kernel.batch, workspace_limit);
    if (!undivided) {
      return Error::invalid(name + ": no algorithm within " + limit + " at the full batch of " +
                            std::to_string(kernel.batch));
    }
    auto plan = optimize::optimize_wr(kernel.batch, measured_allowed_sizes(kernel, policy), kernel.rows,
                            workspace_limit);
    if (!plan) {
      return Error::invalid(name + ": no " + to_string(policy) + " micro-batch plan within " + limit);
    }
    // The library's rule: a split must beat the undivided algorithm by more than the noise.
    report.kernels.push_back(
        WrKernelReport{kernel.layer, kernel.op, kernel.batch, *undivided,
                       optimize::prefer_undivided_within_margin(std::move(*plan), kernel.rows, workspace_limit)});
  }
  return report;
}

Expected<ParetoReport> pareto_report(const std::vector<KernelMeasurements>& kernels, const std::string& kernel_name,
                                     BatchSizePolicy policy) {
  const auto colon = kernel_name.rfind(':');
  const auto op = colon == std::string::npos ? std::nullopt : parse_conv_op(kernel_name.substr(colon + 1));
  if (!op) return Error::invalid("kernel '" + kernel_name + "' is not LAYER:OP with OP one of fwd, bwdd, bwdf");
  const std::string layer = kernel_name.substr(0, colon);
  for (const auto& kernel : kernels) {
    if (kernel.layer != layer || kernel.op != *op) continue;
    ParetoReport report;
    report.layer = layer;
    report.op = *op;
    report.batch = kernel.batch;
    report.policy = policy;
    report.front =
        optimize::desirable_configurations(kernel.batch, measured_allowed_sizes(kernel, policy), kernel.rows);
    if (report.front.empty())
      return Error::invalid("kernel '" + kernel_name + "' has no measurements that cover its batch");
    for (const Measurement& m : kernel.rows) {
      if (m.micro_batch == kernel.batch) report.undivided.push_back(m);
    }
    std::sort(report.undivided.begin(), report.undivided.end(),
              [](const Measurement& a, const Measurement& b) { return a.cost_ms() < b.cost_ms(); });
    return report;
  }
  return Error::invalid("the measurements have no kernel '" + kernel_name + "'");
}

Expected<WdReport> plan_workspace_division(const std::vector<KernelMeasurements>& kernels,
                                           BatchSizePolicy policy, std::size_t total_workspace,
                                           double time_limit_seconds) {
  std::vector<optimize::WdKernel> program;
  // The fronts, then the search, each within the limit: a hostile table can make either long.
  const auto deadline = std::chrono::steady_clock::now() +
                        std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                            std::chrono::duration<double>(time_limit_seconds));
  for (const auto& kernel : kernels) {
    optimize::FrontWork work;
    auto front = optimize::desirable_configurations(kernel.batch, measured_allowed_sizes(kernel, policy), kernel.rows,
                                                    &work, deadline);
    if (work.past_deadline) {
      return optimize::front_past_time_limit(time_limit_seconds)
          .prefixed("kernel " + std::to_string(program.size() + 1) + " of " + std::to_string(kernels.size()) + ": ");
    }
    // A table records each kernel once; a network that repeats a shape would raise its count.
    program.push_back(optimize::WdKernel{kernel_name(kernel), 1, std::move(front)});
  }
  UCUDNN_TRY_ASSIGN(const auto solution, optimize::optimize_wd(program, total_workspace, time_limit_seconds));

  WdReport report;
  report.policy = policy;
  report.total_workspace = total_workspace;
  report.undivided_share = kernels.empty() ? total_workspace : total_workspace / kernels.size();
  for (std::size_t k = 0; k < kernels.size(); ++k) {
    const auto& front = program[k].front;
    report.kernels.push_back(WdKernelReport{
        kernels[k].layer, kernels[k].op, kernels[k].batch, front[solution.choice[k]], static_cast<int>(front.size()),
        optimize::fastest_within(kernels[k].rows, kernels[k].batch, report.undivided_share)});
  }
  report.time_ms = solution.time_ms;
  report.workspace_used = solution.workspace_bytes;
  report.variables = solution.variables;
  report.solve_ms = solution.solve_ms;
  report.optimal = solution.optimal;
  report.gap = solution.gap;
  return report;
}

}  // namespace ucudnn::tools
