#pragma once
// Makes an executable plan from benchmark rows: the WR split priced as issued calls and, where it
// makes other calls, a second one priced as replayed calls. Also the one place for the retry where
// an engine turns out to need more workspace than its row says (rows recorded before the database
// kept backward filter's beta = 1 need), shared by WR planning and workspace division.

#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/batch_policy.h"
#include "core/conv_key.h"
#include "core/measurement.h"
#include "optimize/wr_optimizer.h"
#include "runtime/executor.h"

namespace ucudnn::runtime {

/// A split to build, and the undivided plan's time it is reported against.
struct SplitProposal {
  optimize::MicroBatchSplit split;
  std::optional<double> undivided_ms;
};

/// The next split to build, given the engine runs the last one was found to need more workspace
/// for (empty at first). nullopt: none left; `why_none` may then say why, else the last build's
/// failure is the result.
using ProposeSplit = std::function<std::optional<SplitProposal>(const std::vector<OversizedEngineRun>& oversized,
                                                                 Status* why_none)>;

/// Builds the first proposal whose engines fit `workspace_limit`. Each oversized proposal is
/// warned about once per kernel, with `retry_note` saying what happens instead.
Status build_first_that_fits(const ConvKey& key, std::size_t workspace_limit, BatchSizePolicy policy,
                             const std::string& retry_note, const ProposeSplit& propose,
                             std::unique_ptr<ExecutablePlan>* out);

/// The WR plan of `key` over `rows` (at `sizes`) within `workspace_limit`, with a replay plan
/// where replayed calls plan differently (and no less deterministically).
Status make_wr_plan(const ConvKey& key, const std::vector<int>& sizes, std::size_t workspace_limit,
                    BatchSizePolicy policy, std::vector<Measurement> rows, std::unique_ptr<ExecutablePlan>* out);

/// "2 x 32 algo 1 + 1 x 64 <engine id>", for the log.
std::string describe_runs(const optimize::MicroBatchSplit& plan);

}  // namespace ucudnn::runtime
