// A measurement table from arbitrary bytes: the reader accepts it or names the problem; what it
// accepts (legacy rows with an algorithm, engine rows with algo -1) writes back and reads again
// unchanged, candidates included, and planning it (WR under several policies and
// limits, WD, the Pareto front) answers or refuses with finite numbers, in time bounded by the
// table's rows.

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>

#include "core/candidate_kinds.h"
#include "core/measurement_csv.h"
#include "fuzz_check.h"
#include "tools/plan_report.h"

using namespace ucudnn;
using namespace ucudnn::tools;  // the commands and reports under test

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static unsigned hostile_inputs = 0;
  if (size > 0 && data[0] == '~' && hostile_inputs++ % 256 == 0) {
    // The rest of the input after a megabyte-long field of a row: refused in one short line (no
    // field echoed whole). Costly under the sanitizers: one '~' input in 256.
    std::istringstream long_field("layer,op,microbatch,algo,math_type,time_ms,workspace_bytes\nc,fwd,2,0,0," +
                                  std::string(std::size_t{1} << 20, '9') +
                                  std::string(reinterpret_cast<const char*>(data) + 1, size - 1) + ",0\n");
    auto refused = parse_measurements_csv(long_field, "fuzz.csv");
    if (!refused) UCUDNN_FUZZ_CHECK(refused.message().size() < 400);
  }
  std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
  auto kernels = parse_measurements_csv(in, "fuzz.csv");
  if (!kernels) {
    UCUDNN_FUZZ_CHECK(kernels.message().rfind("fuzz.csv", 0) == 0);  // errors name the file
    return 0;
  }
  std::istringstream written(format_measurements_csv(*kernels));
  auto reread = parse_measurements_csv(written, "written.csv");
  UCUDNN_FUZZ_CHECK(reread.ok());
  UCUDNN_FUZZ_CHECK(reread->size() == kernels->size());
  for (std::size_t k = 0; k < kernels->size(); ++k) {
    UCUDNN_FUZZ_CHECK((*reread)[k].layer == (*kernels)[k].layer);
    UCUDNN_FUZZ_CHECK((*reread)[k].rows.size() == (*kernels)[k].rows.size());
    for (std::size_t r = 0; r < (*kernels)[k].rows.size(); ++r) {
      const Measurement& row = (*kernels)[k].rows[r];
      const ucudnn::Candidate& candidate = row.candidate;
      UCUDNN_FUZZ_CHECK(candidate.kind == ucudnn::CandidateKind::kEngine ? candidate.algorithm == -1
                                                                         : candidate.algorithm >= 0);
      UCUDNN_FUZZ_CHECK((*reread)[k].rows[r].candidate == candidate);
      UCUDNN_FUZZ_CHECK((*reread)[k].rows[r].micro_batch == row.micro_batch);
    }
  }

  constexpr std::size_t kMiB = std::size_t{1} << 20;
  for (BatchSizePolicy policy : {BatchSizePolicy::kAll, BatchSizePolicy::kPowerOfTwo, BatchSizePolicy::kUndivided}) {
    for (std::size_t limit : {std::size_t{0}, 8 * kMiB, 64 * kMiB}) {
      auto report = plan_workspace_reuse(*kernels, policy, limit);
      if (report) {
        UCUDNN_FUZZ_CHECK(std::isfinite(report->total_time_ms()) && report->total_time_ms() >= 0);
        UCUDNN_FUZZ_CHECK(report->total_time_ms() <= report->undivided_total_time_ms() * (1 + 1e-9) + 1e-12);
      }
    }
  }
  auto division = plan_workspace_division(*kernels, BatchSizePolicy::kPowerOfTwo, 64 * kMiB);
  if (division) {
    UCUDNN_FUZZ_CHECK(std::isfinite(division->time_ms));
    UCUDNN_FUZZ_CHECK(division->workspace_used <= 64 * kMiB);
  }
  const KernelMeasurements& first = kernels->front();
  auto front = pareto_report(*kernels, first.layer + ":" + short_name(first.op), BatchSizePolicy::kAll);
  if (front) {
    for (std::size_t i = 1; i < front->front.size(); ++i) {
      UCUDNN_FUZZ_CHECK(front->front[i].workspace_bytes >= front->front[i - 1].workspace_bytes);
    }
  }
  return 0;
}
