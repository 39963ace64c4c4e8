#include "fp64_reference.h"

#include <algorithm>
#include <cmath>

namespace ucudnn_test {
namespace {

// Offsets of every element of a tensor with `dims` and `strides`, in row-major order of dims.
std::vector<size_t> element_offsets(const std::vector<int>& dims, const std::vector<int>& strides) {
  std::vector<size_t> offsets = {0};
  for (size_t d = 0; d < dims.size(); ++d) {
    std::vector<size_t> next;
    next.reserve(offsets.size() * static_cast<size_t>(dims[d]));
    for (size_t base : offsets) {
      for (int i = 0; i < dims[d]; ++i) next.push_back(base + static_cast<size_t>(i) * static_cast<size_t>(strides[d]));
    }
    offsets.swap(next);
  }
  return offsets;
}

// The filter's strides: KCRS, or KRSC for NHWC tensors.
std::vector<int> filter_strides(const ConvProblem& p) {
  const std::vector<int>& dims = p.w_dims;
  const int nd = static_cast<int>(dims.size());
  std::vector<int> strides(nd);
  if (p.spec.layout == Layout::kNhwc) {
    strides[1] = 1;
    int step = dims[1];
    for (int d = nd - 1; d >= 2; --d) {
      strides[d] = step;
      step *= dims[d];
    }
    strides[0] = step;
  } else {
    int step = 1;
    for (int d = nd - 1; d >= 0; --d) {
      strides[d] = step;
      step *= dims[d];
    }
  }
  return strides;
}

}  // namespace

double multiply_adds(const ConvProblem& p) {
  double n = static_cast<double>(product(p.y_dims)) * static_cast<double>(p.spec.c / p.spec.groups);
  for (int f : p.spec.filter) n *= f;
  return n;
}

std::vector<double> fp64_reference(const ConvProblem& p, UcudnnConvolutionOp_t op, const std::vector<float>& x,
                                   const std::vector<float>& y, const std::vector<float>& w,
                                   const std::vector<float>& old, double alpha, double beta) {
  const ConvSpec& s = p.spec;
  const int nd = static_cast<int>(s.spatial.size());
  const int cg = s.c / s.groups, kg = s.k / s.groups;
  const std::vector<int> w_strides = filter_strides(p);
  std::vector<double> sum(old.size(), 0.0);
  std::vector<int> o(nd), f(nd), i(nd);
  const std::vector<int> out(p.y_dims.begin() + 2, p.y_dims.end());
  const size_t out_count = product(out), filter_count = product(s.filter);
  for (int n = 0; n < s.n; ++n) {
    for (int k = 0; k < s.k; ++k) {
      const int g = k / kg;
      for (size_t o_flat = 0; o_flat < out_count; ++o_flat) {
        for (size_t rest = o_flat, d = nd; d-- > 0; rest /= out[d]) o[d] = static_cast<int>(rest % out[d]);
        size_t y_off = static_cast<size_t>(n) * p.y_strides[0] + static_cast<size_t>(k) * p.y_strides[1];
        for (int d = 0; d < nd; ++d) y_off += static_cast<size_t>(o[d]) * p.y_strides[2 + d];
        for (size_t f_flat = 0; f_flat < filter_count; ++f_flat) {
          for (size_t rest = f_flat, d = nd; d-- > 0; rest /= s.filter[d]) f[d] = static_cast<int>(rest % s.filter[d]);
          bool inside = true;
          size_t x_off = static_cast<size_t>(n) * p.x_strides[0], w_off = static_cast<size_t>(k) * w_strides[0];
          for (int d = 0; d < nd; ++d) {
            i[d] = o[d] * s.stride[d] - s.pad[d] + f[d] * s.dilation[d];
            inside = inside && i[d] >= 0 && i[d] < s.spatial[d];
            x_off += static_cast<size_t>(i[d]) * p.x_strides[2 + d];
            w_off += static_cast<size_t>(f[d]) * w_strides[2 + d];
          }
          if (!inside) continue;
          for (int c = 0; c < cg; ++c) {
            const size_t xc = x_off + static_cast<size_t>(g * cg + c) * p.x_strides[1];
            const size_t wc = w_off + static_cast<size_t>(c) * w_strides[1];
            switch (op) {
              case UCUDNN_OP_FORWARD: sum[y_off] += static_cast<double>(x[xc]) * w[wc]; break;
              case UCUDNN_OP_BACKWARD_DATA: sum[xc] += static_cast<double>(y[y_off]) * w[wc]; break;
              case UCUDNN_OP_BACKWARD_FILTER: sum[wc] += static_cast<double>(y[y_off]) * x[xc]; break;
            }
          }
        }
      }
    }
  }
  std::vector<double> want(old.begin(), old.end());
  const std::vector<size_t> offsets = op == UCUDNN_OP_FORWARD         ? element_offsets(p.y_dims, p.y_strides)
                                      : op == UCUDNN_OP_BACKWARD_DATA ? element_offsets(p.x_dims, p.x_strides)
                                                                      : element_offsets(p.w_dims, w_strides);
  for (size_t offset : offsets) want[offset] = alpha * sum[offset] + beta * static_cast<double>(old[offset]);
  return want;
}

double error_against(const std::vector<float>& got, const std::vector<double>& want) {
  double max_diff = 0, max_ref = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    const double diff = std::fabs(static_cast<double>(got[i]) - want[i]);
    if (std::isnan(diff)) return INFINITY;
    max_diff = std::max(max_diff, diff);
    max_ref = std::max(max_ref, std::fabs(want[i]));
  }
  return max_ref > 0 ? max_diff / max_ref : max_diff;
}

double accuracy_floor(const ConvSpec& spec) {
  if (spec.data_type == CUDNN_DATA_FLOAT && spec.math != CUDNN_FMA_MATH) return std::ldexp(1.0, -11);  // TF32: 10 bits
  switch (spec.data_type) {
    case CUDNN_DATA_HALF: return std::ldexp(1.0, -12);
    case CUDNN_DATA_BFLOAT16: return std::ldexp(1.0, -9);
    case CUDNN_DATA_DOUBLE: return std::ldexp(1.0, -54);
    default: return std::ldexp(1.0, -25);
  }
}

}  // namespace ucudnn_test
