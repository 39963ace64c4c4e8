#include "api/introspection.h"

#include "runtime/plan_builder.h"

namespace ucudnn::api {
using ucudnn::runtime::PlanBuilder;
using ucudnn::runtime::plannable_sizes;


std::vector<Measurement> recorded_rows(const ConvKey& key, BatchSizePolicy policy) {
  return PlanBuilder::instance().table_rows(key, plannable_sizes(key, policy), CandidateSet::kBoth);
}

}  // namespace ucudnn::api
