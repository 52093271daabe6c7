#include "runtime/Device.h"

#include "runtime/DeviceBuffer.h"
#include "runtime/Driver.h"
#include "runtime/GpuContext.h"
#include "support/Error.h"

#include <algorithm>
#include <mutex>
#include <set>
#include <utility>

namespace loom::runtime {

Device::Device(int ordinal) : ordinal_(ordinal) {
  GpuContext::get(ordinal); // throws for a device that does not exist or cannot be opened
}

const DeviceInfo &Device::info() const {
  return GpuContext::get(ordinal_).info();
}

Device Device::default_device() {
  return Device(runtime::default_device());
}

std::string Device::sm() const {
  return "sm_" + std::to_string(info().cc_major) + std::to_string(info().cc_minor);
}

std::string Device::to_string() const {
  const DeviceInfo &d = info();
  return "GPU " + std::to_string(ordinal_) + " (" + d.name + ", " + sm() + ", " +
         std::to_string(d.sm_count) + " SMs, " + format_bytes(d.total_memory) + ", PCI " +
         d.pci_bus_id + ")";
}

bool Device::can_access(const Device &peer) const {
  if (peer == *this)
    return true;
  const Driver &cu = Driver::get();
  int can = 0;
  cu.check(cu.cuDeviceCanAccessPeer(&can, GpuContext::get(ordinal_).device(),
                                    GpuContext::get(peer.ordinal_).device()),
           "cuDeviceCanAccessPeer");
  return can != 0;
}

std::vector<Device> devices() {
  std::vector<Device> list;
  for (int d = 0; d < GpuContext::count(); ++d) {
    try {
      GpuContext::get(d);
      list.push_back(Device(d, Device::Checked{}));
    } catch (const Error &) { // a device the driver lists but cannot open is not usable
    }
  }
  return list;
}

Device device_for_local_rank() {
  const int count = GpuContext::count();
  if (count == 0)
    GpuContext::get(0); // throws TargetError saying why there is no GPU
  const int rank = local_rank();
  if (rank < 0)
    throw TargetError("device_for_local_rank: no MPI launcher says this process's local rank "
                      "(OMPI_COMM_WORLD_LOCAL_RANK, MPI_LOCALRANKID, MV2_COMM_WORLD_LOCAL_RANK, "
                      "SLURM_LOCALID, PALS_LOCAL_RANKID are all unset); run it under mpirun or "
                      "srun, or choose a loom::Device yourself");
  return Device(rank % count);
}

DeviceSet::DeviceSet(std::vector<Device> gpus) : gpus_(std::move(gpus)) {
  if (gpus_.empty())
    throw ArgumentError("DeviceSet: no device given (all_gpus() takes every usable GPU; "
                        "DeviceSet::cpu(n) makes logical devices on the CPU)");
}

DeviceSet DeviceSet::cpu(int parts) {
  if (parts < 1 || parts > 64)
    throw ArgumentError("DeviceSet::cpu(" + std::to_string(parts) +
                        "): a count of logical devices from 1 to 64");
  DeviceSet set;
  set.cpu_parts_ = parts;
  return set;
}

std::vector<double> DeviceSet::shares() const {
  std::vector<double> weights;
  for (const Device &d : gpus_)
    weights.push_back(std::max(1, d.multiprocessors()));
  if (on_cpu())
    weights.assign(cpu_parts_, 1.0);
  double total = 0;
  for (double w : weights)
    total += w;
  for (double &w : weights)
    w /= total;
  return weights;
}

std::string DeviceSet::to_string() const {
  if (on_cpu())
    return std::to_string(cpu_parts_) + " logical device" + (cpu_parts_ == 1 ? "" : "s") +
           " on the CPU";
  std::string text = std::to_string(gpus_.size()) + (gpus_.size() == 1 ? " part: " : " parts: ");
  for (size_t k = 0; k < gpus_.size(); ++k)
    text += (k ? ", " : "") + gpus_[k].to_string();
  return text;
}

DeviceSet all_gpus() {
  std::vector<Device> gpus = devices();
  if (gpus.empty()) {
    std::string why;
    GpuContext::usable(&why);
    throw TargetError("all_gpus(): no usable GPU" + (why.empty() ? "" : ": " + why));
  }
  return DeviceSet(std::move(gpus));
}

namespace {

// Enables peer access from `to`'s context to `from`'s memory once per ordered pair; false where
// the devices cannot.
bool peer_access(int to, int from) {
  static std::mutex mutex;
  static std::set<std::pair<int, int>> *enabled = new std::set<std::pair<int, int>>();
  std::lock_guard<std::mutex> lock(mutex);
  if (enabled->count({to, from}))
    return true;
  if (!Device(to).can_access(Device(from)))
    return false;
  const Driver &cu = GpuContext::activate(to);
  CUresult result = cu.cuCtxEnablePeerAccess(GpuContext::get(from).context(), 0);
  if (result != CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED)
    cu.check(result, "cuCtxEnablePeerAccess");
  enabled->insert({to, from});
  return true;
}

} // namespace

void copy_between_devices(CUdeviceptr destination, int to, CUdeviceptr source, int from,
                          size_t bytes) {
  if (bytes == 0)
    return;
  if (to == from) {
    const Driver &cu = GpuContext::activate(to);
    cu.check(cu.cuMemcpyDtoD_v2(destination, source, bytes), "cuMemcpyDtoD_v2");
    cu.check(cu.cuCtxSynchronize(), "cuCtxSynchronize");
    return;
  }
  peer_access(to, from);
  const Driver &cu = GpuContext::activate(to);
  cu.check(cu.cuMemcpyPeer(destination, GpuContext::get(to).context(), source,
                           GpuContext::get(from).context(), bytes),
           "cuMemcpyPeer");
  cu.check(cu.cuCtxSynchronize(), "cuCtxSynchronize");
}

} // namespace loom::runtime
