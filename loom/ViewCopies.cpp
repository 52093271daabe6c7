#include "loom/ViewCopies.h"

#include "ir/Type.h"
#include "runtime/DeviceBuffer.h"
#include "support/StridedLayout.h"

namespace loom {

namespace {

struct Layout {
  std::span<const int64_t> shape, strides;
  size_t element_bytes;
  strided::Reach reach;
};

Layout layout_of(const Argument &a) {
  Layout l{std::span<const int64_t>(a.shape.begin(), a.shape.end()),
           std::span<const int64_t>(a.strides.begin(), a.strides.end()),
           static_cast<size_t>(ir::byte_size(a.type)),
           {}};
  strided::reach(l.shape, l.strides, l.reach); // check_arguments checked it does not overflow
  return l;
}

// A device view's span, from its lowest element to its highest, in host memory.
std::vector<unsigned char> read_span(const Argument &a, const Layout &l) {
  std::vector<unsigned char> span(static_cast<size_t>(l.reach.span()) * l.element_bytes);
  if (!span.empty())
    runtime::copy_device_to_host(
        span.data(), a.device + static_cast<uint64_t>(l.reach.lowest * int64_t(l.element_bytes)),
        span.size());
  return span;
}

} // namespace

void view_to_dense(const Argument &a, std::vector<unsigned char> &dense) {
  const Layout l = layout_of(a);
  dense.resize(static_cast<size_t>(a.size()) * l.element_bytes);
  if (l.reach.empty)
    return;
  if (a.kind == Argument::Kind::HostArray) {
    strided::copy(static_cast<unsigned char *>(a.host), dense.data(), l.shape, l.strides,
                  l.element_bytes, strided::Direction::ToDense);
    return;
  }
  std::vector<unsigned char> span = read_span(a, l);
  strided::copy(span.data() - l.reach.lowest * int64_t(l.element_bytes), dense.data(), l.shape,
                l.strides, l.element_bytes, strided::Direction::ToDense);
}

void dense_to_view(const Argument &a, const unsigned char *dense) {
  const Layout l = layout_of(a);
  if (l.reach.empty)
    return;
  unsigned char *source = const_cast<unsigned char *>(dense); // only read (Direction::FromDense)
  if (a.kind == Argument::Kind::HostArray) {
    strided::copy(static_cast<unsigned char *>(a.host), source, l.shape, l.strides, l.element_bytes,
                  strided::Direction::FromDense);
    return;
  }
  std::vector<unsigned char> span = read_span(a, l);
  strided::copy(span.data() - l.reach.lowest * int64_t(l.element_bytes), source, l.shape, l.strides,
                l.element_bytes, strided::Direction::FromDense);
  runtime::copy_host_to_device(a.device +
                                   static_cast<uint64_t>(l.reach.lowest * int64_t(l.element_bytes)),
                               span.data(), span.size());
}

} // namespace loom
