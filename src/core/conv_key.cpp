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

// Every descriptor field, in a fixed order and spelling: changing it orphans stored databases.
void write_fields(std::ostream& out, const ConvKey& k) {
  out << "x:t" << k.x.data_type << ":";
  write_list(out, k.x.dims);
  out << ":s";
  write_list(out, k.x.strides);
  out << " w:t" << k.w.data_type << ":f" << k.w.format << ":";
  write_list(out, k.w.dims);
  out << " conv:m" << k.conv.mode << ":c" << k.conv.compute_type << ":g" << k.conv.group_count << ":math"
      << k.conv.math_type << ":r" << k.conv.reorder_type << ":p";
  write_list(out, k.conv.pads);
  out << ":u";
  write_list(out, k.conv.strides);
  out << ":d";
  write_list(out, k.conv.dilations);
  out << " y:t" << k.y.data_type << ":";
  write_list(out, k.y.dims);
  out << ":s";
  write_list(out, k.y.strides);
}

}  // namespace

ConvKey ConvKey::with_batch(int n) const {
  ConvKey key = *this;
  if (!key.x.dims.empty()) key.x.dims[0] = n;
  if (!key.y.dims.empty()) key.y.dims[0] = n;
  return key;
}

std::string ConvKey::to_string() const {
  std::ostringstream out;
  out << short_name(op) << " dev" << device << " ";
  write_fields(out, *this);
  return out.str();
}

std::string ConvKey::layer_signature() const {
  std::ostringstream out;
  write_fields(out, with_batch(0));  // N is stored in its own column
  return out.str();
}

bool operator==(const ConvKey& a, const ConvKey& b) {
  return a.op == b.op && a.device == b.device && fields(a.x) == fields(b.x) && fields(a.w) == fields(b.w) &&
         fields(a.conv) == fields(b.conv) && fields(a.y) == fields(b.y);
}

bool operator<(const ConvKey& a, const ConvKey& b) {
  auto all = [](const ConvKey& k) {
    return std::tuple_cat(std::tie(k.op, k.device), fields(k.x), fields(k.w), fields(k.conv), fields(k.y));
  };
  return all(a) < all(b);
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
