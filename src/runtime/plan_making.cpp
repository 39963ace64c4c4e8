#include "runtime/plan_making.h"

#include <algorithm>
#include <chrono>
#include <iterator>

#include "core/logging.h"
#include "core/statistics.h"
#include "optimize/filter_sums.h"
#include "optimize/padded_input.h"

namespace ucudnn::runtime {

namespace {

// Removes the rows of engine runs found to need more workspace than they were recorded with.
void drop_engine_rows(const std::vector<OversizedEngineRun>& oversized, std::vector<Measurement>* rows) {
  auto listed = [&](const Measurement& m) {
    return std::any_of(oversized.begin(), oversized.end(), [&](const OversizedEngineRun& run) {
      return m.candidate.engine_id == run.engine && m.micro_batch == run.size;
    });
  };
  rows->erase(std::remove_if(rows->begin(), rows->end(), listed), rows->end());
}

// Whether two plans make the same calls.
bool same_calls(const optimize::MicroBatchSplit& a, const optimize::MicroBatchSplit& b) {
  if (a.runs.size() != b.runs.size()) return false;
  for (std::size_t i = 0; i < a.runs.size(); ++i) {
    const optimize::MicroBatchRun& x = a.runs[i];
    const optimize::MicroBatchRun& y = b.runs[i];
    if (x.size() != y.size() || x.count != y.count || x.candidate() != y.candidate()) return false;
  }
  return true;
}

// The WR split of `key` over `rows` with calls priced by `pricing` (not yet made ready to run).
std::optional<optimize::MicroBatchSplit> solve_priced(const ConvKey& key, const std::vector<int>& sizes,
                                            std::size_t workspace_limit, CallPricing pricing,
                                            const std::vector<Measurement>& rows) {
  const auto solving = std::chrono::steady_clock::now();
  // A plan pads all its micro-batches' input or none: the padded rows are planned apart, and
  // their plan runs only where it is faster by more than the noise.
  std::vector<Measurement> priced, padded;
  for (Measurement& row : optimize::priced_for_split_sums(key, rows)) {
    (row.candidate.padded_channels > 0 ? padded : priced).push_back(std::move(row));
  }
  auto wr = optimize::optimize_wr(key.batch(), sizes, priced, workspace_limit, pricing);
  if (wr) wr = optimize::prefer_undivided_within_margin(std::move(*wr), priced, workspace_limit, pricing);
  if (!padded.empty()) {
    auto on_padded = optimize::optimize_wr_on_padded_input(key, sizes, padded, workspace_limit, pricing);
    if (on_padded && (!wr || on_padded->time_ms < (1.0 - optimize::kSplitMargin) * wr->time_ms)) {
      wr = std::move(on_padded);
    }
  }
  Statistics::instance().add_solving(
      key.op, std::chrono::duration<double>(std::chrono::steady_clock::now() - solving).count());
  return wr;
}

// The plan of `key` over `rows` with calls priced by `pricing`, made ready to run; the rows of
// engines found oversized are dropped from `rows` and the split solved again.
Status build_priced(const ConvKey& key, const std::vector<int>& sizes, std::size_t workspace_limit,
                    BatchSizePolicy policy, CallPricing pricing, std::vector<Measurement>* rows,
                    std::unique_ptr<ExecutablePlan>* out) {
  const ProposeSplit propose = [&](const std::vector<OversizedEngineRun>& oversized,
                                   Status* why_none) -> std::optional<SplitProposal> {
    drop_engine_rows(oversized, rows);  // so the rounds end
    auto wr = solve_priced(key, sizes, workspace_limit, pricing, *rows);
    if (!wr) {
      *why_none = Error(ErrorCode::kNotSupported, "no algorithm runs " + key.to_string() + " within " +
                                                      std::to_string(workspace_limit) + " bytes of workspace");
      return std::nullopt;
    }
    SplitProposal proposal{std::move(*wr), std::nullopt};
    // Reported against one call of the whole kernel: rows in output-channel pieces make several.
    std::vector<Measurement> whole_kernel;
    std::copy_if(rows->begin(), rows->end(), std::back_inserter(whole_kernel), [](const Measurement& m) {
      return m.candidate.channel_pieces == 1 && m.candidate.input_pieces == 1 && m.candidate.padded_channels == 0;
    });
    if (auto single = optimize::fastest_within(whole_kernel, key.batch(), workspace_limit, pricing)) {
      proposal.undivided_ms = single->cost_ms(pricing);
    }
    return proposal;
  };
  return build_first_that_fits(key, workspace_limit, policy, "planning it again without them", propose, out);
}

}  // namespace

Status build_first_that_fits(const ConvKey& key, std::size_t workspace_limit, BatchSizePolicy policy,
                             const std::string& retry_note, const ProposeSplit& propose,
                             std::unique_ptr<ExecutablePlan>* out) {
  std::vector<OversizedEngineRun> oversized;
  Status failure = Status::success();
  while (true) {
    Status why_none = Status::success();
    std::optional<SplitProposal> proposal = propose(oversized, &why_none);
    if (!proposal) return why_none.ok() ? failure : why_none;
    oversized.clear();
    failure = ExecutablePlan::build(key, workspace_limit, policy, std::move(proposal->split), proposal->undivided_ms,
                                    out, &oversized);
    if (failure.ok() || oversized.empty()) return failure;
    warn_once("oversized engine " + key.to_string(), key.to_string() + ": " + failure.message() + "; " + retry_note);
  }
}

Status make_wr_plan(const ConvKey& key, const std::vector<int>& sizes, std::size_t workspace_limit,
                    BatchSizePolicy policy, std::vector<Measurement> rows, std::unique_ptr<ExecutablePlan>* out) {
  std::unique_ptr<ExecutablePlan> plan;
  UCUDNN_TRY(build_priced(key, sizes, workspace_limit, policy, CallPricing::kIssued, &rows, &plan));
  // Replayed calls cost the host one launch: planned on GPU time alone, they may split where
  // issued calls may not. Made only where that plans different calls, and not where it would
  // make a deterministic kernel nondeterministic (a framework asking for determinism would drop
  // it). An addition: a replay plan that cannot be made leaves the issued plan to replay.
  // Checked on the solution, then again on the built plan (building may drop an oversized engine
  // and solve again).
  const auto worth_replaying = [&](const optimize::MicroBatchSplit& wr) {
    return !same_calls(wr, plan->split()) && (!plan->split().deterministic() || wr.deterministic());
  };
  const auto replay_wr = solve_priced(key, sizes, workspace_limit, CallPricing::kReplayed, rows);
  std::unique_ptr<ExecutablePlan> replayed;
  if (replay_wr && worth_replaying(*replay_wr)) {
    const Status built = build_priced(key, sizes, workspace_limit, policy, CallPricing::kReplayed, &rows, &replayed);
    if (!built.ok()) warn_once("replay plan " + key.to_string(), "no replay plan: " + built.message());
  }
  if (replayed && worth_replaying(replayed->split())) plan->set_replayed_plan(std::move(replayed));
  *out = std::move(plan);
  return Status::success();
}

std::string describe_runs(const optimize::MicroBatchSplit& plan) {
  std::string runs;
  for (const optimize::MicroBatchRun& run : plan.runs) {
    runs += (runs.empty() ? "" : " + ") + std::to_string(run.count) + " x " + std::to_string(run.size()) + " " +
            describe_candidate(run.candidate());
  }
  return plan.sums_in_fp32 ? runs + ", summed in FP32" : runs;
}

}  // namespace ucudnn::runtime
