#include "core/conv_key.h"

#include <sstream>
#include <tuple>

namespace ucudnn {
namespace {

auto fields(const TensorLayout& t) { return std::tie(t.data_type, t.dims, t.strides); }
auto fields(const FilterLayout& f) { return std::tie(f.data_type, f.format, f.dims); }
auto fields(const ConvParams& c) {
  return std::tie(c.mode, c.compute_type, c.group_count, c.math_type, c.reorder_type, c.pads, c.strides,
                  c.dilations);
}

void write_list(std::ostream& out, const std::vector<int>& values) {
  for (std::size_t i = 0; i < values.size(); ++i) out << (i ? "x" : "") << values[i];
}

// FNV-1a over the integers of the key: cheap, and every field takes part.
struct Hasher {
  std::size_t state = 1469598103934665603ull;
  void add(long long v) {
    state ^= static_cast<std::size_t>(v);
    state *= 1099511628211ull;
  }
  void add(const std::vector<int>& values) {
    add(static_cast<long long>(values.size()));
    for (int v : values) add(v);
  }
};

}  // namespace

ConvKey ConvKey::with_batch(int n) const {
  ConvKey key = *this;
  if (!key.x.dims.empty()) key.x.dims[0] = n;
  if (!key.y.dims.empty()) key.y.dims[0] = n;
  return key;
}

std::string ConvKey::to_string() const {
  std::ostringstream out;
  out << short_name(op) << " dev" << device << " x:t" << x.data_type << ":";
  write_list(out, x.dims);
  out << ":s";
  write_list(out, x.strides);
  out << " w:t" << w.data_type << ":f" << w.format << ":";
  write_list(out, w.dims);
  out << " conv:m" << conv.mode << ":c" << conv.compute_type << ":g" << conv.group_count << ":math"
      << conv.math_type << ":r" << conv.reorder_type << ":p";
  write_list(out, conv.pads);
  out << ":u";
  write_list(out, conv.strides);
  out << ":d";
  write_list(out, conv.dilations);
  out << " y:t" << y.data_type << ":";
  write_list(out, y.dims);
  out << ":s";
  write_list(out, y.strides);
  return out.str();
}

bool operator==(const ConvKey& a, const ConvKey& b) {
  return a.op == b.op && a.device == b.device && fields(a.x) == fields(b.x) && fields(a.w) == fields(b.w) &&
         fields(a.conv) == fields(b.conv) && fields(a.y) == fields(b.y);
}

std::size_t ConvKeyHash::operator()(const ConvKey& key) const {
  Hasher h;
  h.add(static_cast<int>(key.op));
  h.add(key.device);
  for (const TensorLayout* t : {&key.x, &key.y}) {
    h.add(t->data_type);
    h.add(t->dims);
    h.add(t->strides);
  }
  h.add(key.w.data_type);
  h.add(key.w.format);
  h.add(key.w.dims);
  h.add(key.conv.mode);
  h.add(key.conv.compute_type);
  h.add(key.conv.group_count);
  h.add(key.conv.math_type);
  h.add(key.conv.reorder_type);
  h.add(key.conv.pads);
  h.add(key.conv.strides);
  h.add(key.conv.dilations);
  return h.state;
}

}  // namespace ucudnn
