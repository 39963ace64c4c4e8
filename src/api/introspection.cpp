#include "api/introspection.h"

#include "runtime/plan_builder.h"

namespace ucudnn {

std::vector<Measurement> recorded_rows(const ConvKey& key, BatchSizePolicy policy) {
  return PlanBuilder::instance().table_rows(key, plannable_sizes(key, policy), CandidateSet::kBoth);
}

}  // namespace ucudnn
