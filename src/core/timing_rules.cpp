#include "core/timing_rules.h"

#include <algorithm>

namespace ucudnn {

bool cut_at_warm_up(double warm_ms, const TimingBound& bound) {
  return warm_ms > bound.gpu_ms * kWarmUpCutFactor + kWarmUpSlackMs &&
         warm_ms > bound.cost_ms * kWarmUpCutFactor + kWarmUpSlackMs;
}

bool cut_after_first_call(double gpu_ms, double host_ms, const TimingBound& bound) {
  return gpu_ms > bound.gpu_ms * (1 + kCutMargin) && std::max(gpu_ms, host_ms) > bound.cost_ms * (1 + kCutMargin);
}

int calls_per_sample(double one_call_ms, double sample_ms, int most) {
  const double calls = sample_ms / std::max(one_call_ms, 1e-3);
  return calls >= most ? most : std::max(1, static_cast<int>(calls));
}

bool samples_agree(const std::vector<double>& samples, double tolerance) {
  if (samples.empty()) return false;
  const auto [low, high] = std::minmax_element(samples.begin(), samples.end());
  return *low > 0 && (*high - *low) / *low < tolerance;
}

double median_of(std::vector<double> samples) {
  if (samples.empty()) return 0;
  std::sort(samples.begin(), samples.end());
  const std::size_t n = samples.size();
  return n % 2 ? samples[n / 2] : 0.5 * (samples[n / 2 - 1] + samples[n / 2]);
}

}  // namespace ucudnn
