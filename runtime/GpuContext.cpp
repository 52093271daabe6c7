#include "runtime/GpuContext.h"

#include "runtime/Driver.h"
#include "support/Error.h"
#include "support/Settings.h"

#include <array>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <mutex>

namespace loom::runtime {

namespace {

// Ordinals loom can open; the driver numbers at most this many devices on any machine sold.
constexpr int max_devices = 64;

// The bytes of each context's printf buffer (0: the driver's default): LOOM_PRINT_BUFFER, then
// set_print_buffer. The mutex orders a change of it against a context's opening: a context is
// published and given the size under it, so it gets either the new size at its opening or the
// change's cuCtxSetLimit.
std::mutex &print_buffer_mutex() {
  static std::mutex m;
  return m;
}
size_t &requested_print_buffer() {
  static size_t bytes = settings::print_buffer().value_or(0);
  return bytes;
}

// The device's name and sm without opening its context, for describe_devices.
std::string short_description(int ordinal) {
  const Driver &cu = Driver::get();
  CUdevice device = 0;
  char name[256] = {};
  int major = 0, minor = 0;
  if (cu.cuDeviceGet(&device, ordinal) != CUDA_SUCCESS ||
      cu.cuDeviceGetName(name, sizeof(name) - 1, device) != CUDA_SUCCESS ||
      cu.cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device) !=
          CUDA_SUCCESS ||
      cu.cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device) !=
          CUDA_SUCCESS)
    return std::to_string(ordinal) + ": (the driver does not describe it)";
  return std::to_string(ordinal) + ": " + name + " (sm_" + std::to_string(major) +
         std::to_string(minor) + ")";
}

// "this machine has 2 GPUs: 0: NVIDIA H200 (sm_90), 1: NVIDIA H200 (sm_90)"
std::string what_exists() {
  const int n = GpuContext::count();
  if (n == 0)
    return "this machine has no usable GPU";
  return "this machine has " + std::to_string(n) + (n == 1 ? " GPU: " : " GPUs: ") +
         describe_devices();
}

// The innermost DeviceScope of the thread; -1: none.
thread_local int scoped_device = -1;

// default_device()'s one reading of LOOM_DEVICE: the ordinal, or why there is none.
struct DefaultDevice {
  int ordinal = 0;
  std::string error;
};

const DefaultDevice &default_choice() {
  static const DefaultDevice choice = [] {
    DefaultDevice d;
    const std::optional<std::string> &value = settings::device();
    if (!value)
      return d;
    if (*value == "local-rank") {
      const int rank = local_rank();
      if (rank < 0) {
        d.error = "LOOM_DEVICE=local-rank, but no MPI launcher says this process's local rank "
                  "(OMPI_COMM_WORLD_LOCAL_RANK, MPI_LOCALRANKID, MV2_COMM_WORLD_LOCAL_RANK, "
                  "SLURM_LOCALID, PALS_LOCAL_RANKID are all unset)";
        return d;
      }
      const int n = GpuContext::count();
      d.ordinal = n > 0 ? rank % n : 0;
      return d;
    }
    errno = 0;
    char *end = nullptr;
    long ordinal = std::strtol(value->c_str(), &end, 10);
    if (errno != 0 || end == value->c_str() || *end != '\0' || ordinal < 0 ||
        ordinal >= max_devices) {
      d.error = "LOOM_DEVICE='" + *value + "' is not a device: expected a device number or " +
                "local-rank (" + what_exists() + ")";
      return d;
    }
    const int n = GpuContext::count();
    if (n > 0 && ordinal >= n) {
      d.error = "LOOM_DEVICE=" + *value + " names no device: " + what_exists();
      return d;
    }
    d.ordinal = static_cast<int>(ordinal);
    return d;
  }();
  return choice;
}

} // namespace

// Later calls report the first attempt's failure rather than retrying: a failed cuInit or context
// creation does not heal within a process.
struct GpuContext::Opened {
  std::once_flag once;
  GpuContext *context = nullptr;
  std::string failure;
};

// Never destroyed, like the driver: objects freed after main returns still use the contexts.
GpuContext::Opened *GpuContext::slots() {
  static auto *table = new std::array<Opened, max_devices>();
  return table->data();
}

const GpuContext::Opened &GpuContext::opened(int ordinal) {
  Opened &result = slots()[ordinal];
  std::call_once(result.once, [&] {
    const Driver &driver = Driver::get();
    if (!driver.available()) {
      result.failure = driver.unavailable_reason();
      return;
    }
    auto *context = new GpuContext();
    try {
      context->open(ordinal);
      std::lock_guard<std::mutex> lock(print_buffer_mutex());
      if (size_t bytes = requested_print_buffer())
        driver.check(driver.cuCtxSetLimit(CU_LIMIT_PRINTF_FIFO_SIZE, bytes),
                     "cuCtxSetLimit(CU_LIMIT_PRINTF_FIFO_SIZE)");
      result.context = context;
    } catch (const Error &e) {
      delete context;
      result.failure = e.what();
    }
  });
  return result;
}

void GpuContext::set_print_buffer(size_t bytes) {
  if (bytes == 0)
    throw ArgumentError("set_print_buffer(0): the print buffer needs at least one byte");
  std::lock_guard<std::mutex> lock(print_buffer_mutex());
  requested_print_buffer() = bytes;
  for (int d = 0; d < count(); ++d) {
    GpuContext *context = slots()[d].context; // those opened already; the others set it at open
    if (!context)
      continue;
    const Driver &cu = activate(d);
    cu.check(cu.cuCtxSetLimit(CU_LIMIT_PRINTF_FIFO_SIZE, bytes),
             "cuCtxSetLimit(CU_LIMIT_PRINTF_FIFO_SIZE)");
  }
}

int GpuContext::count() {
  const Driver &driver = Driver::get();
  return driver.available() ? std::min(driver.device_count(), max_devices) : 0;
}

GpuContext &GpuContext::get(int ordinal) {
  const Driver &driver = Driver::get();
  if (!driver.available())
    throw TargetError("no usable GPU: " + driver.unavailable_reason());
  if (ordinal < 0 || ordinal >= count())
    throw ArgumentError("there is no GPU " + std::to_string(ordinal) + ": " + what_exists());
  const Opened &result = opened(ordinal);
  if (!result.context)
    throw TargetError(
        "no usable GPU: " + (ordinal == 0 ? "" : "device " + std::to_string(ordinal) + ": ") +
        result.failure);
  return *result.context;
}

GpuContext &GpuContext::get() {
  return get(current_device());
}

bool GpuContext::usable(std::string *reason) {
  const Driver &driver = Driver::get();
  std::string why;
  if (!driver.available())
    why = driver.unavailable_reason();
  else if (!default_choice().error.empty())
    why = default_choice().error;
  else if (const Opened &result = opened(default_choice().ordinal); !result.context)
    why = result.failure;
  if (!why.empty() && reason)
    *reason = why;
  return why.empty();
}

const Driver &GpuContext::activate(int ordinal) {
  Driver::get().throw_if_poisoned();
  get(ordinal).make_current();
  return Driver::get();
}

const Driver &GpuContext::activate() {
  return activate(current_device());
}

void GpuContext::make_current() const {
  Driver::get().check(Driver::get().cuCtxSetCurrent(context_), "cuCtxSetCurrent");
}

void GpuContext::open(int ordinal) {
  const Driver &cu = Driver::get();
  cu.check(cu.cuDeviceGet(&device_, ordinal), "cuDeviceGet");
  // The primary context is the one cudart and other libraries share; retained for the process's
  // lifetime and never released, so nothing loom hands out can outlive it.
  cu.check(cu.cuDevicePrimaryCtxRetain(&context_, device_), "cuDevicePrimaryCtxRetain");
  make_current();

  info_.ordinal = ordinal;
  char name[256] = {};
  cu.check(cu.cuDeviceGetName(name, sizeof(name) - 1, device_), "cuDeviceGetName");
  info_.name = name;
  auto attribute = [&](CUdevice_attribute which) {
    int value = 0;
    cu.check(cu.cuDeviceGetAttribute(&value, which, device_), "cuDeviceGetAttribute");
    return value;
  };
  info_.cc_major = attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
  info_.cc_minor = attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
  info_.sm_count = attribute(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
  info_.max_threads_per_block = attribute(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
  info_.max_shared_per_block_optin =
      attribute(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN);
  char pci[32];
  std::snprintf(pci, sizeof(pci), "%04x:%02x:%02x.0", attribute(CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID),
                attribute(CU_DEVICE_ATTRIBUTE_PCI_BUS_ID),
                attribute(CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID));
  info_.pci_bus_id = pci;
  cu.check(cu.cuDriverGetVersion(&info_.driver_version), "cuDriverGetVersion");
  cu.check(cu.cuDeviceTotalMem_v2(&info_.total_memory, device_), "cuDeviceTotalMem_v2");
}

int default_device() {
  const DefaultDevice &choice = default_choice();
  if (!choice.error.empty())
    throw TargetError(choice.error);
  return choice.ordinal;
}

int current_device() {
  return scoped_device >= 0 ? scoped_device : default_device();
}

int local_rank() {
  // The variables launchers set, most common first: OpenMPI, MPICH's Hydra (and Intel MPI),
  // MVAPICH2, Slurm's srun, HPE's PALS.
  for (const char *name : {"OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID",
                           "MV2_COMM_WORLD_LOCAL_RANK", "SLURM_LOCALID", "PALS_LOCAL_RANKID"}) {
    const char *text = std::getenv(name);
    if (!text || !*text)
      continue;
    char *end = nullptr;
    long rank = std::strtol(text, &end, 10);
    if (*end == '\0' && rank >= 0 && rank < (1L << 30))
      return static_cast<int>(rank);
  }
  return -1;
}

DeviceScope::DeviceScope(int ordinal) : previous_(scoped_device) {
  scoped_device = ordinal;
}

DeviceScope::~DeviceScope() {
  scoped_device = previous_;
}

void set_print_buffer(size_t bytes) {
  GpuContext::set_print_buffer(bytes);
}

std::string describe_devices() {
  const int n = GpuContext::count();
  if (n == 0)
    return "none";
  std::string text;
  for (int d = 0; d < n; ++d)
    text += (d ? ", " : "") + short_description(d);
  return text;
}

} // namespace loom::runtime
