#pragma once
// How the benchmark rig (runtime/benchmark_rig.h) decides, from the times it has, to stop timing a
// candidate and how many calls make a sample: pure rules, CPU-tested, apart from the CUDA calls.
//
// The fast search stops timing a candidate after its first call (past the warm-up) where that call
// cannot beat the bound it is given (the best known candidate needing no more workspace): such a
// candidate keeps that call's times. A single call of a kernel of a few microseconds is timed less
// exactly than a sample, so a candidate within kCutMargin of the bound is timed in full.

#include <vector>

namespace ucudnn {

/// What a candidate must beat to be timed in full: the best GPU time and issued cost (the longer
/// of GPU and host time) of known candidates that need no more workspace than it does.
struct TimingBound {
  double gpu_ms = 0;
  double cost_ms = 0;
};

/// A candidate within this much of the bound is timed in full: a single sample can be a few
/// percent off, and near-ties are where full timing decides.
inline constexpr double kCutMargin = 0.10;
/// A first call can be slower than later ones (module loading, caches, clocks): the warm-up cuts
/// only what is this many times slower than the bound, and kWarmUpSlackMs more.
inline constexpr double kWarmUpCutFactor = 2.0;
inline constexpr double kWarmUpSlackMs = 20.0;

/// Whether a warm-up call of `warm_ms` (on the GPU, one-time work included) is slower than the
/// bound by more than any loading explains, on the GPU and as issued: the candidate stops there.
bool cut_at_warm_up(double warm_ms, const TimingBound& bound);

/// Whether a first timed call of `gpu_ms` on the GPU and `host_ms` to issue cannot beat the bound,
/// on the GPU or as issued: the candidate cannot enter a plan where the bound's candidate can.
bool cut_after_first_call(double gpu_ms, double host_ms, const TimingBound& bound);

/// How many back-to-back calls of `one_call_ms` make a sample of about `sample_ms`: 1 to `most`.
int calls_per_sample(double one_call_ms, double sample_ms, int most);

/// Whether samples agree: (max - min) / min below `tolerance` (false where any is not positive).
bool samples_agree(const std::vector<double>& samples, double tolerance);

/// The median of `samples` (the mean of the middle two for an even count; 0 for none).
double median_of(std::vector<double> samples);

}  // namespace ucudnn
