// The GPUs of the machine as a program names them: loom::devices() lists them, a loom::Device
// picks one for a kernel (Kernel::on), an array (DeviceArray(device, ...)) or a stream
// (Stream(device)). Work that names no device goes to the default one: LOOM_DEVICE's, else 0.
#pragma once

#include "runtime/CudaTypes.h"

#include <cstddef>
#include <string>
#include <vector>

namespace loom::runtime {

// What loom needs to know about a device to compile for it, size grids and explain its choices.
struct DeviceInfo {
  int ordinal = 0;  // the driver's device number (after CUDA_VISIBLE_DEVICES)
  std::string name; // e.g. "NVIDIA H200"
  int cc_major = 0; // compute capability, e.g. 9.0 for sm_90
  int cc_minor = 0;
  int sm_count = 0;        // streaming multiprocessors
  int driver_version = 0;  // cuDriverGetVersion, e.g. 13000 for CUDA 13.0
  size_t total_memory = 0; // bytes
  int max_threads_per_block = 0;
  // The shared memory a block may take, static and dynamic, once its kernel opts in to more than
  // 48 KiB (CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN: 227 KiB on sm_90).
  int max_shared_per_block_optin = 0;
  std::string pci_bus_id; // "0000:19:00.0" (domain:bus:device.function)
};

// The device of a process that names none: LOOM_DEVICE (read once: a device number, or
// "local-rank" for the MPI launcher's local rank modulo the device count), else 0. Throws
// TargetError when LOOM_DEVICE is malformed or names no device (saying which exist); needs no
// GPU for an unset or numeric value.
int default_device();
// The device the calling thread's GPU work goes to: the innermost DeviceScope's, else
// default_device().
int current_device();
// The rank of this process among the MPI ranks of its node, from the launcher's environment
// (OpenMPI, MPICH/Hydra, MVAPICH2, Slurm, PALS); -1 when none says.
int local_rank();

// Directs the calling thread's GPU work to device `ordinal` until it goes (nested scopes restore
// the outer device). Checks nothing: get(ordinal) does, when the work asks for the context.
class DeviceScope {
public:
  explicit DeviceScope(int ordinal);
  ~DeviceScope();
  DeviceScope(const DeviceScope &) = delete;
  DeviceScope &operator=(const DeviceScope &) = delete;

private:
  int previous_;
};

// "0: NVIDIA H200 (sm_90), 1: NVIDIA H200 (sm_90)", or "none": the devices, for messages.
std::string describe_devices();

class Device {
public:
  // GPU `ordinal` as the driver numbers them (after CUDA_VISIBLE_DEVICES), its context opened.
  // ArgumentError when there is no such device (naming those there are); TargetError without a
  // usable GPU.
  explicit Device(int ordinal);
  // The device of work that names none: LOOM_DEVICE's (a number, or local-rank), else 0.
  // TargetError without a usable GPU, or for a LOOM_DEVICE that names no device.
  static Device default_device();

  int ordinal() const { return ordinal_; }
  const DeviceInfo &info() const;
  const std::string &name() const { return info().name; }
  std::string sm() const; // "sm_90"
  int multiprocessors() const { return info().sm_count; }
  size_t memory() const { return info().total_memory; } // bytes
  const std::string &pci_bus_id() const { return info().pci_bus_id; }
  // "GPU 1 (NVIDIA H200, sm_90, 132 SMs, 139.8 GiB, PCI 0000:19:00.0)"
  std::string to_string() const;

  // Whether kernels on this device can read and write `peer`'s memory directly (the driver's
  // peer access over NVLink or PCIe); copies between the two then go device to device.
  bool can_access(const Device &peer) const;

  bool operator==(const Device &other) const { return ordinal_ == other.ordinal_; }

private:
  struct Checked {};
  Device(int ordinal, Checked) : ordinal_(ordinal) {}
  int ordinal_;
  friend std::vector<Device> devices();
  friend Device device_for_local_rank();
};

// The usable GPUs, in the driver's order; empty when there are none (never throws for that).
std::vector<Device> devices();

// One GPU per MPI rank of a node: the launcher's local rank (OpenMPI, MPICH, MVAPICH2, Slurm,
// PALS set it) modulo the device count, as LOOM_DEVICE=local-rank chooses. TargetError without a
// usable GPU or where no launcher says the local rank.
Device device_for_local_rank();

// The devices one call spreads a kernel's parallel loop over (Kernel::on(all_gpus())): each part
// of the loop's first dimension runs on one of them, the parts in proportion to the devices'
// multiprocessors (equal for equal GPUs). A device may appear more than once, and the CPU may
// stand in for all of them: logical devices, which split a call the same way on a machine with
// one GPU or none (each logical device has its own memory and runs its part in turn or at once).
class DeviceSet {
public:
  // Parts on `gpus`, in order. ArgumentError when empty.
  explicit DeviceSet(std::vector<Device> gpus);
  // `parts` logical devices on the CPU (1 to 64; else ArgumentError).
  static DeviceSet cpu(int parts);

  bool on_cpu() const { return gpus_.empty(); }
  int parts() const { return on_cpu() ? cpu_parts_ : static_cast<int>(gpus_.size()); }
  const std::vector<Device> &gpus() const { return gpus_; }
  // Each part's share of the iterations, summing to 1.
  std::vector<double> shares() const;
  // "2 parts: GPU 0 (NVIDIA H200, ...), GPU 1 (...)" or "3 logical devices on the CPU"
  std::string to_string() const;

private:
  DeviceSet() = default;
  std::vector<Device> gpus_;
  int cpu_parts_ = 0;
};

// Every usable GPU of the machine (devices()). TargetError when there is none, saying why.
DeviceSet all_gpus();

// Copies `bytes` from `source` on device `from` to `destination` on device `to` and waits: device
// to device where peer access is possible (enabled once per pair), else through host memory (the
// driver's cuMemcpyPeer stages it).
void copy_between_devices(CUdeviceptr destination, int to, CUdeviceptr source, int from,
                          size_t bytes);

} // namespace loom::runtime

namespace loom::runtime {
// The bytes of each GPU's buffer of print() output (CUDA's printf FIFO; the driver's default is
// 1 MiB, LOOM_PRINT_BUFFER sets it too). Lines a kernel prints past it are lost; the driver does
// not say how many. ArgumentError for 0.
void set_print_buffer(size_t bytes);
} // namespace loom::runtime

namespace loom {
using runtime::all_gpus;
using runtime::Device;
using runtime::device_for_local_rank;
using runtime::devices;
using runtime::DeviceSet;
using runtime::set_print_buffer;
} // namespace loom
