#include "api/introspection.h"

#include "runtime/engine.h"

namespace ucudnn {

std::vector<Measurement> recorded_rows(const ConvKey& key, BatchSizePolicy policy) {
  return Engine::instance().table_rows(key, plannable_sizes(key, policy), CandidateSet::kBoth);
}

}  // namespace ucudnn
