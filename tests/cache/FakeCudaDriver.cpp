// A stand-in for libcuda.so.1, loaded through LOOM_CUDA_DRIVER by cache_fake_gpu_test, so that
// the GPU side of the compile caches (linking PTX to a cubin, loading a cubin, falling back to
// the driver's JIT, refusing a bad image) runs on machines without a GPU. It keeps memory on the
// host and its launches do nothing: it checks which driver calls loom makes, not results.
//
// Its "cubin" is "FAKECUBIN\n" followed by the PTX; the entry points of a module are the PTX's
// .entry names. FAKE_CUDA_NO_LINK=1 makes cuLinkCreate fail with CUDA_ERROR_NOT_SUPPORTED.
// loom_fake_cuda_count(name) says how often `name` was called. loom_fake_cuda_trap() makes the next
// cuCtxSynchronize report CUDA_ERROR_ILLEGAL_ADDRESS, as after a kernel's out-of-bounds access,
// and every later launch, copy, allocation and synchronization report it too (a sticky error).
// loom_fake_cuda_device_bytes() and loom_fake_cuda_peak_device_bytes() say how much device memory
// is allocated now and was at most since loom_fake_cuda_reset_peak(). loom_fake_cuda_copies()
// hands out every copy between host and device since loom_fake_cuda_clear_copies(): direction,
// device and host addresses, the device allocation and the bytes (FakeCopies.h), so that a test
// can tell which arrays were copied which way.
//
// FAKE_CUDA_DEVICES=N (1 to 8, read at cuInit; 1 when unset) makes it N devices, each with its own
// primary context. It remembers which context made each allocation, module, function and stream,
// and counts every call that uses one of them while another context is current:
// loom_fake_cuda_context_mismatches() says how many there were (loom must make none), and
// loom_fake_cuda_launches_on(d) how many kernels were launched in device d's context.
//
// Shared memory as CUDA limits it, on a device that allows a block 227 KiB once its kernel opts in
// (CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN): a function's static shared bytes are
// those of the module's .shared declarations (CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES); a launch whose
// dynamic shared memory takes the block past 48 KiB fails with CUDA_ERROR_INVALID_VALUE unless
// cuFuncSetAttribute(CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES) allowed that much, which it
// refuses past the device's limit. loom_fake_cuda_last_launch_shared_bytes() says what the last
// launch asked for, loom_fake_cuda_fail_set_attribute() makes the next cuFuncSetAttribute fail.
#include "FakeCopies.h"
#include "runtime/CudaApi.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>

using namespace loom::runtime;

namespace {

constexpr const char *cubin_magic = "FAKECUBIN\n";

struct Function {
  std::string name;
  CUcontext context;
  int static_shared = 0;   // bytes of the module's .shared arrays
  int dynamic_allowed = 0; // CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, once set
};
struct Module {
  CUcontext context;
  int static_shared = 0; // bytes of its .shared declarations
  std::set<std::string> entries;
  std::map<std::string, std::unique_ptr<Function>> functions; // handed out, freed on unload
};
struct Link {
  std::string ptx, cubin;
};

std::mutex mutex;
thread_local CUcontext current = nullptr; // the calling thread's context
// Transparent lookups: counting a call allocates only the first time (CallAllocationTest
// counts loom's allocations around calls into this driver).
std::map<std::string, int, std::less<>> &counts() {
  static auto *c = new std::map<std::string, int, std::less<>>();
  return *c;
}
void count(const char *name) {
  std::lock_guard<std::mutex> lock(mutex);
  auto found = counts().find(std::string_view(name));
  if (found == counts().end())
    found = counts().emplace(name, 0).first;
  ++found->second;
}

// Every loaded module, until unloaded: a context poisoned by a sticky error is never asked to
// unload its modules again, and they stay reachable (not leaks) for LeakSanitizer.
std::set<Module *> &loaded_modules() {
  static auto *modules = new std::set<Module *>();
  return *modules;
}

Module *module_of(const std::string &ptx) {
  auto *module = new Module();
  module->context = current;
  {
    std::lock_guard<std::mutex> lock(mutex);
    loaded_modules().insert(module);
  }
  size_t at = 0;
  while ((at = ptx.find(".entry ", at)) != std::string::npos) {
    at += 7;
    size_t end = ptx.find_first_of("( \n", at);
    module->entries.insert(ptx.substr(at, end - at));
  }
  // ".shared .align 16 .b8 loom_shared_0[1024];" (not ".extern .shared ...[]", the dynamic one).
  for (at = 0; (at = ptx.find(".shared .align", at)) != std::string::npos; ++at) {
    size_t line = ptx.rfind('\n', at);
    if (ptx.compare(line == std::string::npos ? 0 : line + 1, 7, ".extern") == 0)
      continue;
    size_t type = ptx.find(" .", at + 14), open = ptx.find('[', at), close = ptx.find(']', at);
    if (type == std::string::npos || open == std::string::npos ||
        close != open + 1 + std::strspn(ptx.c_str() + open + 1, "0123456789"))
      continue;
    const int bits = std::atoi(ptx.c_str() + type + 3); // .b8, .b32, .f64 ...
    module->static_shared += std::atoi(ptx.c_str() + open + 1) * std::max(bits / 8, 1);
  }
  return module;
}

// Devices and their contexts: device d's is 0x1000 + 0x100 d. Each thread has its own current one.
std::atomic<int> devices{1};
CUcontext context_of(int device) {
  return reinterpret_cast<CUcontext>(uintptr_t(0x1000 + 0x100 * device));
}
int device_of(CUcontext context) {
  return static_cast<int>((reinterpret_cast<uintptr_t>(context) - 0x1000) / 0x100);
}
std::atomic<int> mismatches{0};
// Shared memory (see the top of the file).
constexpr int default_block_shared = 48 * 1024, optin_block_shared = 227 * 1024;
std::atomic<unsigned> last_launch_shared{0};
std::atomic<bool> fail_set_attribute{false};
constexpr int max_fake_devices = 8;
std::atomic<int> launches_on[max_fake_devices];

// Counts a use of an object of `owner`'s context while another is current.
void expect_current(CUcontext owner) {
  if (owner != current)
    ++mismatches;
}

// A stream is a heap int holding its context's device.
CUcontext stream_context(CUstream stream) {
  return context_of(*reinterpret_cast<int *>(stream));
}

// loom_fake_cuda_trap() arms the next synchronization; from then on `sticky` is the error that
// launches, copies, allocations and synchronizations report.
std::atomic<bool> trap_armed{false};

// Device memory by allocation (guarded by `mutex`): what loom holds now and at most.
std::map<CUdeviceptr, size_t> &allocated() {
  static auto *a = new std::map<CUdeviceptr, size_t>();
  return *a;
}
// And the context of each allocation.
std::map<CUdeviceptr, CUcontext> &allocated_in() {
  static auto *a = new std::map<CUdeviceptr, CUcontext>();
  return *a;
}
size_t device_bytes = 0, peak_device_bytes = 0;
std::atomic<CUresult> sticky{CUDA_SUCCESS};

// The copies since the last clear (guarded by `mutex`), in a fixed array: recording allocates
// nothing (CallAllocationTest counts allocations around calls that copy). Past
// loom_fake_max_copies they are only counted.
constexpr size_t max_copies = loom_fake_max_copies;
LoomFakeCopy copies[max_copies];
size_t copy_count = 0;

void record_copy(bool to_device, CUdeviceptr device, const void *host, size_t bytes) {
  std::lock_guard<std::mutex> lock(mutex);
  LoomFakeCopy copy{to_device, device, 0, 0, host, bytes};
  auto after = allocated().upper_bound(device); // the allocation holding `device` precedes it
  if (after != allocated().begin()) {
    auto holding = std::prev(after);
    if (device < holding->first + holding->second) {
      copy.allocation = holding->first;
      copy.allocation_bytes = holding->second;
    }
  }
  if (copy_count < max_copies)
    copies[copy_count] = copy;
  ++copy_count;
}

} // namespace

extern "C" {

// Device memory now allocated, and the most allocated at once since the last reset.
size_t loom_fake_cuda_device_bytes() {
  std::lock_guard<std::mutex> lock(mutex);
  return device_bytes;
}
size_t loom_fake_cuda_peak_device_bytes() {
  std::lock_guard<std::mutex> lock(mutex);
  return peak_device_bytes;
}
void loom_fake_cuda_reset_peak() {
  std::lock_guard<std::mutex> lock(mutex);
  peak_device_bytes = device_bytes;
}

// Copies up to `capacity` of the copies recorded since the last clear into `out` and returns how
// many there were (more than it copied when they overflowed `capacity` or the fake's own store).
size_t loom_fake_cuda_copies(LoomFakeCopy *out, size_t capacity) {
  std::lock_guard<std::mutex> lock(mutex);
  std::copy_n(copies, std::min({copy_count, capacity, max_copies}), out);
  return copy_count;
}
void loom_fake_cuda_clear_copies() {
  std::lock_guard<std::mutex> lock(mutex);
  copy_count = 0;
}

void loom_fake_cuda_trap() {
  trap_armed = true;
}

int loom_fake_cuda_context_mismatches() {
  return mismatches;
}
int loom_fake_cuda_launches_on(int device) {
  return device >= 0 && device < max_fake_devices ? launches_on[device].load() : 0;
}

unsigned loom_fake_cuda_last_launch_shared_bytes() {
  return last_launch_shared;
}
void loom_fake_cuda_fail_set_attribute() {
  fail_set_attribute = true;
}

int loom_fake_cuda_count(const char *name) {
  std::lock_guard<std::mutex> lock(mutex);
  auto found = counts().find(name);
  return found == counts().end() ? 0 : found->second;
}

CUresult cuGetErrorName(CUresult error, const char **text) {
  *text = error == CUDA_ERROR_ILLEGAL_ADDRESS ? "CUDA_ERROR_ILLEGAL_ADDRESS"
          : error == CUDA_ERROR_INVALID_IMAGE ? "CUDA_ERROR_INVALID_IMAGE"
          : error == CUDA_ERROR_NOT_SUPPORTED ? "CUDA_ERROR_NOT_SUPPORTED"
          : error == CUDA_ERROR_NOT_FOUND     ? "CUDA_ERROR_NOT_FOUND"
          : error == CUDA_ERROR_INVALID_VALUE ? "CUDA_ERROR_INVALID_VALUE"
                                              : "CUDA_ERROR_UNKNOWN";
  return CUDA_SUCCESS;
}
CUresult cuGetErrorString(CUresult, const char **text) {
  *text = "reported by loom's fake driver";
  return CUDA_SUCCESS;
}
CUresult cuInit(unsigned int) {
  const char *n = std::getenv("FAKE_CUDA_DEVICES");
  if (n && std::atoi(n) >= 1 && std::atoi(n) <= max_fake_devices)
    devices = std::atoi(n);
  return CUDA_SUCCESS;
}
CUresult cuDriverGetVersion(int *version) {
  *version = 12040;
  return CUDA_SUCCESS;
}
CUresult cuDeviceGetCount(int *n) {
  *n = devices;
  return CUDA_SUCCESS;
}
CUresult cuDeviceGet(CUdevice *device, int ordinal) {
  if (ordinal < 0 || ordinal >= devices)
    return CUDA_ERROR_INVALID_DEVICE;
  *device = ordinal;
  return CUDA_SUCCESS;
}
CUresult cuDeviceGetName(char *name, int length, CUdevice) {
  std::strncpy(name, "loom fake GPU", length);
  return CUDA_SUCCESS;
}
CUresult cuDeviceGetAttribute(int *value, CUdevice_attribute attribute, CUdevice device) {
  switch (attribute) {
  case CU_DEVICE_ATTRIBUTE_PCI_BUS_ID:
    *value = 0x10 + device;
    break;
  case CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID:
  case CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID:
    *value = 0;
    break;
  case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR:
    *value = 9;
    break;
  case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR:
    *value = 0;
    break;
  case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT:
    *value = 4;
    break;
  case CU_DEVICE_ATTRIBUTE_WARP_SIZE:
    *value = 32;
    break;
  case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK:
    *value = default_block_shared;
    break;
  case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN:
    *value = optin_block_shared;
    break;
  default:
    *value = 1024;
  }
  return CUDA_SUCCESS;
}
CUresult cuDeviceTotalMem_v2(size_t *bytes, CUdevice) {
  *bytes = size_t(1) << 30;
  return CUDA_SUCCESS;
}
CUresult cuDevicePrimaryCtxRetain(CUcontext *context, CUdevice device) {
  *context = context_of(device);
  return CUDA_SUCCESS;
}
CUresult cuCtxSetCurrent(CUcontext context) {
  current = context;
  return CUDA_SUCCESS;
}
CUresult cuCtxGetCurrent(CUcontext *context) {
  *context = current;
  return CUDA_SUCCESS;
}
CUresult cuCtxPushCurrent_v2(CUcontext context) {
  current = context;
  return CUDA_SUCCESS;
}
CUresult cuCtxPopCurrent_v2(CUcontext *context) {
  *context = current;
  return CUDA_SUCCESS;
}
CUresult cuDeviceCanAccessPeer(int *can_access, CUdevice, CUdevice) {
  *can_access = 1;
  return CUDA_SUCCESS;
}
CUresult cuCtxEnablePeerAccess(CUcontext, unsigned int) {
  count("cuCtxEnablePeerAccess");
  return CUDA_SUCCESS;
}
CUresult cuCtxSetLimit(CUlimit, size_t) {
  count("cuCtxSetLimit");
  return CUDA_SUCCESS;
}
CUresult cuCtxSynchronize() {
  count("cuCtxSynchronize");
  if (trap_armed.exchange(false))
    sticky = CUDA_ERROR_ILLEGAL_ADDRESS;
  if (sticky != CUDA_SUCCESS)
    return sticky;
  return CUDA_SUCCESS;
}
CUresult cuMemGetInfo_v2(size_t *free_bytes, size_t *total_bytes) {
  *free_bytes = *total_bytes = size_t(1) << 30;
  return CUDA_SUCCESS;
}
CUresult cuMemAlloc_v2(CUdeviceptr *pointer, size_t bytes) {
  count("cuMemAlloc_v2");
  if (sticky != CUDA_SUCCESS)
    return sticky;
  *pointer = reinterpret_cast<CUdeviceptr>(std::malloc(bytes));
  if (!*pointer)
    return CUDA_ERROR_OUT_OF_MEMORY;
  std::lock_guard<std::mutex> lock(mutex);
  allocated()[*pointer] = bytes;
  allocated_in()[*pointer] = current;
  device_bytes += bytes;
  peak_device_bytes = std::max(peak_device_bytes, device_bytes);
  return CUDA_SUCCESS;
}
CUresult cuMemFree_v2(CUdeviceptr pointer) {
  {
    std::lock_guard<std::mutex> lock(mutex);
    auto found = allocated().find(pointer);
    if (found != allocated().end()) {
      device_bytes -= found->second;
      allocated().erase(found);
      expect_current(allocated_in()[pointer]);
      allocated_in().erase(pointer);
    }
  }
  std::free(reinterpret_cast<void *>(pointer));
  return CUDA_SUCCESS;
}
CUresult cuMemcpyDtoD_v2(CUdeviceptr destination, CUdeviceptr source, size_t bytes) {
  count("cuMemcpyDtoD_v2");
  if (sticky != CUDA_SUCCESS)
    return sticky;
  std::memmove(reinterpret_cast<void *>(destination), reinterpret_cast<const void *>(source),
               bytes);
  return CUDA_SUCCESS;
}
CUresult cuMemcpyPeer(CUdeviceptr destination, CUcontext destination_context, CUdeviceptr source,
                      CUcontext source_context, size_t bytes) {
  count("cuMemcpyPeer");
  if (sticky != CUDA_SUCCESS)
    return sticky;
  {
    std::lock_guard<std::mutex> lock(mutex);
    if (allocated_in().count(destination) && allocated_in()[destination] != destination_context)
      ++mismatches;
    if (allocated_in().count(source) && allocated_in()[source] != source_context)
      ++mismatches;
  }
  std::memmove(reinterpret_cast<void *>(destination), reinterpret_cast<const void *>(source),
               bytes);
  return CUDA_SUCCESS;
}
CUresult cuMemAllocHost_v2(void **pointer, size_t bytes) {
  *pointer = std::malloc(bytes);
  return *pointer ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
}
CUresult cuMemFreeHost(void *pointer) {
  std::free(pointer);
  return CUDA_SUCCESS;
}
CUresult cuMemcpyHtoD_v2(CUdeviceptr destination, const void *source, size_t bytes) {
  count("cuMemcpyHtoD_v2");
  if (sticky != CUDA_SUCCESS)
    return sticky;
  record_copy(true, destination, source, bytes);
  std::memcpy(reinterpret_cast<void *>(destination), source, bytes);
  return CUDA_SUCCESS;
}
CUresult cuMemcpyDtoH_v2(void *destination, CUdeviceptr source, size_t bytes) {
  count("cuMemcpyDtoH_v2");
  if (sticky != CUDA_SUCCESS)
    return sticky;
  record_copy(false, source, destination, bytes);
  std::memcpy(destination, reinterpret_cast<const void *>(source), bytes);
  return CUDA_SUCCESS;
}
// Asynchronous copies happen at once (a stream's work is always complete here).
CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr destination, const void *source, size_t bytes, CUstream) {
  count("cuMemcpyHtoDAsync_v2");
  if (sticky != CUDA_SUCCESS)
    return sticky;
  record_copy(true, destination, source, bytes);
  std::memcpy(reinterpret_cast<void *>(destination), source, bytes);
  return CUDA_SUCCESS;
}
CUresult cuMemcpyDtoHAsync_v2(void *destination, CUdeviceptr source, size_t bytes, CUstream) {
  count("cuMemcpyDtoHAsync_v2");
  if (sticky != CUDA_SUCCESS)
    return sticky;
  record_copy(false, source, destination, bytes);
  std::memcpy(destination, reinterpret_cast<const void *>(source), bytes);
  return CUDA_SUCCESS;
}
CUresult cuModuleLoadDataEx(CUmodule *module, const void *image, unsigned int, CUjit_option *,
                            void **) {
  count("cuModuleLoadDataEx");
  *module = reinterpret_cast<CUmodule>(module_of(static_cast<const char *>(image)));
  return CUDA_SUCCESS;
}
CUresult cuModuleLoadData(CUmodule *module, const void *image) {
  count("cuModuleLoadData");
  const char *text = static_cast<const char *>(image);
  if (std::strncmp(text, cubin_magic, std::strlen(cubin_magic)) != 0)
    return CUDA_ERROR_INVALID_IMAGE;
  *module = reinterpret_cast<CUmodule>(module_of(text + std::strlen(cubin_magic)));
  return CUDA_SUCCESS;
}
CUresult cuModuleGetFunction(CUfunction *function, CUmodule module, const char *name) {
  if (!reinterpret_cast<Module *>(module)->entries.count(name))
    return CUDA_ERROR_NOT_FOUND;
  expect_current(reinterpret_cast<Module *>(module)->context);
  std::unique_ptr<Function> &slot = reinterpret_cast<Module *>(module)->functions[name];
  if (!slot)
    slot = std::make_unique<Function>(Function{name, reinterpret_cast<Module *>(module)->context,
                                               reinterpret_cast<Module *>(module)->static_shared});
  *function = reinterpret_cast<CUfunction>(slot.get());
  return CUDA_SUCCESS;
}
CUresult cuModuleUnload(CUmodule module) {
  expect_current(reinterpret_cast<Module *>(module)->context);
  {
    std::lock_guard<std::mutex> lock(mutex);
    loaded_modules().erase(reinterpret_cast<Module *>(module));
  }
  delete reinterpret_cast<Module *>(module);
  return CUDA_SUCCESS;
}
CUresult cuLinkCreate_v2(unsigned int, CUjit_option *, void **, CUlinkState *state) {
  count("cuLinkCreate_v2");
  const char *no_link = std::getenv("FAKE_CUDA_NO_LINK");
  if (no_link && std::strcmp(no_link, "1") == 0)
    return CUDA_ERROR_NOT_SUPPORTED;
  *state = reinterpret_cast<CUlinkState>(new Link());
  return CUDA_SUCCESS;
}
CUresult cuLinkAddData_v2(CUlinkState state, CUjitInputType type, void *data, size_t bytes,
                          const char *, unsigned int, CUjit_option *, void **) {
  if (type != CU_JIT_INPUT_PTX || bytes == 0 || static_cast<char *>(data)[bytes - 1] != '\0')
    return CUDA_ERROR_INVALID_VALUE; // loom passes PTX with its NUL
  reinterpret_cast<Link *>(state)->ptx = static_cast<const char *>(data);
  return CUDA_SUCCESS;
}
CUresult cuLinkComplete(CUlinkState state, void **cubin, size_t *bytes) {
  count("cuLinkComplete");
  Link *link = reinterpret_cast<Link *>(state);
  link->cubin = cubin_magic + link->ptx;
  *cubin = link->cubin.data();
  *bytes = link->cubin.size() + 1; // with the NUL, which cuModuleLoadData above relies on
  return CUDA_SUCCESS;
}
CUresult cuLinkDestroy(CUlinkState state) {
  count("cuLinkDestroy");
  delete reinterpret_cast<Link *>(state);
  return CUDA_SUCCESS;
}
CUresult cuFuncGetAttribute(int *value, CUfunction_attribute attribute, CUfunction function) {
  const Function *f = reinterpret_cast<Function *>(function);
  *value = attribute == CU_FUNC_ATTRIBUTE_NUM_REGS            ? 32
           : attribute == CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES ? f->static_shared
           : attribute == CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES
               ? std::max(f->dynamic_allowed, default_block_shared - f->static_shared)
               : 1024;
  return CUDA_SUCCESS;
}
CUresult cuFuncSetAttribute(CUfunction function, CUfunction_attribute attribute, int value) {
  count("cuFuncSetAttribute");
  Function *f = reinterpret_cast<Function *>(function);
  expect_current(f->context);
  if (fail_set_attribute.exchange(false) ||
      attribute != CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES || value < 0 ||
      f->static_shared + value > optin_block_shared)
    return CUDA_ERROR_INVALID_VALUE;
  f->dynamic_allowed = value;
  return CUDA_SUCCESS;
}
CUresult cuOccupancyMaxPotentialBlockSize(int *min_grid_size, int *block_size, CUfunction,
                                          CUoccupancyB2DSize, size_t, int) {
  *min_grid_size = 32;
  *block_size = 256;
  return CUDA_SUCCESS;
}
CUresult cuOccupancyMaxActiveBlocksPerMultiprocessor(int *block_count, CUfunction, int, size_t) {
  *block_count = 8;
  return CUDA_SUCCESS;
}
// What cuLaunchKernel and cuLaunchKernelEx check and record of a launch.
static CUresult launch(CUfunction function, unsigned int shared_bytes, CUstream stream) {
  const Function *f = reinterpret_cast<Function *>(function);
  expect_current(f->context);
  last_launch_shared = shared_bytes;
  // Past 48 KiB a block needs its kernel's opt-in, as on a real device.
  if (f->static_shared + int64_t(shared_bytes) > default_block_shared &&
      int64_t(shared_bytes) > f->dynamic_allowed)
    return CUDA_ERROR_INVALID_VALUE;
  if (stream)
    expect_current(stream_context(stream));
  if (int d = device_of(current); d >= 0 && d < max_fake_devices)
    ++launches_on[d];
  return sticky;
}
CUresult cuLaunchKernel(CUfunction function, unsigned int, unsigned int, unsigned int, unsigned int,
                        unsigned int, unsigned int, unsigned int shared_bytes, CUstream stream,
                        void **, void **) {
  count("cuLaunchKernel");
  return launch(function, shared_bytes, stream);
}
// Counted as "cuLaunchKernelEx", and as "programmatic launch" where its attribute asks for one;
// FAKE_CUDA_NO_PROGRAMMATIC=1 (read at each call) refuses those with CUDA_ERROR_NOT_SUPPORTED, as
// a driver that cannot capture them would.
CUresult cuLaunchKernelEx(const CUlaunchConfig *config, CUfunction function, void **, void **) {
  count("cuLaunchKernelEx");
  for (unsigned a = 0; a < config->numAttrs; ++a)
    if (config->attrs[a].id == CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION &&
        config->attrs[a].value.programmaticStreamSerializationAllowed) {
      const char *refuse = std::getenv("FAKE_CUDA_NO_PROGRAMMATIC");
      if (refuse && std::string(refuse) == "1")
        return CUDA_ERROR_NOT_SUPPORTED;
      count("programmatic launch");
    }
  return launch(function, config->sharedMemBytes, config->hStream);
}
CUresult cuStreamCreate(CUstream *stream, unsigned int) {
  count("cuStreamCreate");
  *stream = reinterpret_cast<CUstream>(new int(device_of(current)));
  return CUDA_SUCCESS;
}
CUresult cuStreamDestroy_v2(CUstream stream) {
  count("cuStreamDestroy_v2");
  expect_current(stream_context(stream));
  delete reinterpret_cast<int *>(stream);
  return CUDA_SUCCESS;
}
CUresult cuEventQuery(CUevent) {
  return sticky;
}
CUresult cuStreamSynchronize(CUstream stream) {
  count("cuStreamSynchronize");
  if (stream)
    expect_current(stream_context(stream));
  if (sticky != CUDA_SUCCESS)
    return sticky;
  return CUDA_SUCCESS;
}
CUresult cuEventCreate(CUevent *event, unsigned int) {
  *event = reinterpret_cast<CUevent>(new int(0));
  return CUDA_SUCCESS;
}
CUresult cuEventRecord(CUevent, CUstream) {
  return CUDA_SUCCESS;
}
CUresult cuEventSynchronize(CUevent) {
  return CUDA_SUCCESS;
}
CUresult cuEventElapsedTime_v2(float *milliseconds, CUevent, CUevent) {
  *milliseconds = 0;
  return CUDA_SUCCESS;
}
CUresult cuEventDestroy_v2(CUevent event) {
  delete reinterpret_cast<int *>(event);
  return CUDA_SUCCESS;
}

// Stream capture and graphs: a graph replays nothing here (the fake runs no kernel).
CUresult cuStreamBeginCapture_v2(CUstream, CUstreamCaptureMode) {
  count("cuStreamBeginCapture_v2");
  return CUDA_SUCCESS;
}
CUresult cuStreamEndCapture(CUstream, CUgraph *graph) {
  count("cuStreamEndCapture");
  *graph = reinterpret_cast<CUgraph>(new int(0));
  return CUDA_SUCCESS;
}
CUresult cuGraphInstantiateWithFlags(CUgraphExec *exec, CUgraph, unsigned long long) {
  count("cuGraphInstantiateWithFlags");
  *exec = reinterpret_cast<CUgraphExec>(new int(0));
  return CUDA_SUCCESS;
}
CUresult cuGraphLaunch(CUgraphExec, CUstream) {
  count("cuGraphLaunch");
  return sticky;
}
CUresult cuGraphExecDestroy(CUgraphExec exec) {
  count("cuGraphExecDestroy");
  delete reinterpret_cast<int *>(exec);
  return CUDA_SUCCESS;
}
CUresult cuGraphDestroy(CUgraph graph) {
  count("cuGraphDestroy");
  delete reinterpret_cast<int *>(graph);
  return CUDA_SUCCESS;
}

} // extern "C"

// Every entry point loom resolves is defined above, with the parameter types loom calls it with.
#define LOOM_FAKE_CUDA_CHECK(name, params) [[maybe_unused]] static name##_fn check_##name = &::name;
LOOM_CUDA_ENTRY_POINTS(LOOM_FAKE_CUDA_CHECK)
#undef LOOM_FAKE_CUDA_CHECK
