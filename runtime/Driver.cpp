#include "runtime/Driver.h"

#include "support/Error.h"
#include "support/Settings.h"

namespace loom::runtime {

namespace {

// Names and descriptions (as cuGetErrorString words them) of the results loom is likely to meet,
// for messages when the driver itself cannot describe a result (it is missing or failed to load).
struct KnownResult {
  CUresult code;
  const char *name;
  const char *description;
};
constexpr KnownResult known_results[] = {
    {CUDA_SUCCESS, "CUDA_SUCCESS", "no error"},
    {CUDA_ERROR_INVALID_VALUE, "CUDA_ERROR_INVALID_VALUE", "invalid argument"},
    {CUDA_ERROR_OUT_OF_MEMORY, "CUDA_ERROR_OUT_OF_MEMORY", "out of memory"},
    {CUDA_ERROR_NOT_INITIALIZED, "CUDA_ERROR_NOT_INITIALIZED", "initialization error"},
    {CUDA_ERROR_DEINITIALIZED, "CUDA_ERROR_DEINITIALIZED", "driver shutting down"},
    {CUDA_ERROR_STUB_LIBRARY, "CUDA_ERROR_STUB_LIBRARY", "CUDA driver is a stub library"},
    {CUDA_ERROR_DEVICE_UNAVAILABLE, "CUDA_ERROR_DEVICE_UNAVAILABLE",
     "CUDA-capable device(s) is/are busy or unavailable"},
    {CUDA_ERROR_NO_DEVICE, "CUDA_ERROR_NO_DEVICE", "no CUDA-capable device is detected"},
    {CUDA_ERROR_INVALID_DEVICE, "CUDA_ERROR_INVALID_DEVICE", "invalid device ordinal"},
    {CUDA_ERROR_INVALID_IMAGE, "CUDA_ERROR_INVALID_IMAGE", "device kernel image is invalid"},
    {CUDA_ERROR_INVALID_CONTEXT, "CUDA_ERROR_INVALID_CONTEXT", "invalid device context"},
    {CUDA_ERROR_NO_BINARY_FOR_GPU, "CUDA_ERROR_NO_BINARY_FOR_GPU",
     "no kernel image is available for execution on the device"},
    {CUDA_ERROR_INVALID_PTX, "CUDA_ERROR_INVALID_PTX", "a PTX JIT compilation failed"},
    {CUDA_ERROR_JIT_COMPILER_NOT_FOUND, "CUDA_ERROR_JIT_COMPILER_NOT_FOUND",
     "PTX JIT compiler library not found"},
    {CUDA_ERROR_UNSUPPORTED_PTX_VERSION, "CUDA_ERROR_UNSUPPORTED_PTX_VERSION",
     "the provided PTX was compiled with an unsupported toolchain."},
    {CUDA_ERROR_INVALID_HANDLE, "CUDA_ERROR_INVALID_HANDLE", "invalid resource handle"},
    {CUDA_ERROR_NOT_FOUND, "CUDA_ERROR_NOT_FOUND", "named symbol not found"},
    {CUDA_ERROR_NOT_READY, "CUDA_ERROR_NOT_READY", "device not ready"},
    {CUDA_ERROR_ILLEGAL_ADDRESS, "CUDA_ERROR_ILLEGAL_ADDRESS",
     "an illegal memory access was encountered"},
    {CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES, "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES",
     "too many resources requested for launch"},
    {CUDA_ERROR_LAUNCH_TIMEOUT, "CUDA_ERROR_LAUNCH_TIMEOUT",
     "the launch timed out and was terminated"},
    {CUDA_ERROR_ASSERT, "CUDA_ERROR_ASSERT", "device-side assert triggered"},
    {CUDA_ERROR_HARDWARE_STACK_ERROR, "CUDA_ERROR_HARDWARE_STACK_ERROR", "hardware stack error"},
    {CUDA_ERROR_ILLEGAL_INSTRUCTION, "CUDA_ERROR_ILLEGAL_INSTRUCTION",
     "an illegal instruction was encountered"},
    {CUDA_ERROR_MISALIGNED_ADDRESS, "CUDA_ERROR_MISALIGNED_ADDRESS", "misaligned address"},
    {CUDA_ERROR_INVALID_ADDRESS_SPACE, "CUDA_ERROR_INVALID_ADDRESS_SPACE",
     "operation not supported on global/shared address space"},
    {CUDA_ERROR_INVALID_PC, "CUDA_ERROR_INVALID_PC", "invalid program counter"},
    {CUDA_ERROR_LAUNCH_FAILED, "CUDA_ERROR_LAUNCH_FAILED", "unspecified launch failure"},
    {CUDA_ERROR_NOT_PERMITTED, "CUDA_ERROR_NOT_PERMITTED", "operation not permitted"},
    {CUDA_ERROR_NOT_SUPPORTED, "CUDA_ERROR_NOT_SUPPORTED", "operation not supported"},
    {CUDA_ERROR_SYSTEM_DRIVER_MISMATCH, "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH",
     "system has unsupported display driver / cuda driver combination"},
    {CUDA_ERROR_UNKNOWN, "CUDA_ERROR_UNKNOWN", "unknown error"},
};

const KnownResult *find_known(CUresult result) {
  for (const KnownResult &k : known_results)
    if (k.code == result)
      return &k;
  return nullptr;
}

// Errors after which the context cannot be used again: the user should know that retrying in the
// same process is pointless.
bool corrupts_context(CUresult result) {
  switch (result) {
  case CUDA_ERROR_ILLEGAL_ADDRESS:
  case CUDA_ERROR_ASSERT:
  case CUDA_ERROR_HARDWARE_STACK_ERROR:
  case CUDA_ERROR_ILLEGAL_INSTRUCTION:
  case CUDA_ERROR_MISALIGNED_ADDRESS:
  case CUDA_ERROR_INVALID_ADDRESS_SPACE:
  case CUDA_ERROR_INVALID_PC:
  case CUDA_ERROR_LAUNCH_FAILED:
    return true;
  default:
    return false;
  }
}

// Older drivers lack some current symbols; these older names take the same arguments.
const char *older_name(const char *symbol) {
  if (std::string(symbol) == "cuEventElapsedTime_v2")
    return "cuEventElapsedTime"; // _v2 arrived with CUDA 12.8
  return nullptr;
}

} // namespace

Driver &Driver::get() {
  // Never destroyed: device buffers and modules held in static objects are freed after main returns
  // and must still find the entry points.
  static Driver *driver = new Driver();
  return *driver;
}

Driver::Driver() {
  available_ = load();
  if (!available_) {
    SharedLibrary::clear(entry_points());
    SharedLibrary::clear(optional_entry_points());
    device_count_ = 0;
  }
}

std::vector<EntryPoint> Driver::entry_points() {
  std::vector<EntryPoint> points = {LOOM_CUDA_ENTRY_POINTS(LOOM_ENTRY_POINT)};
  for (EntryPoint &point : points)
    point.older_symbol = older_name(point.symbol);
  return points;
}

std::vector<EntryPoint> Driver::optional_entry_points() {
  return {LOOM_CUDA_OPTIONAL_ENTRY_POINTS(LOOM_ENTRY_POINT)};
}

bool Driver::load() {
  const std::optional<std::string> &override_path = settings::cuda_driver();
  library_path_ = override_path.value_or("libcuda.so.1");
  std::string why;
  std::optional<SharedLibrary> library = SharedLibrary::open(library_path_, &why);
  if (!library) {
    unavailable_reason_ = library_path_;
    if (override_path)
      unavailable_reason_ += " (from LOOM_CUDA_DRIVER)";
    unavailable_reason_ += " could not be loaded (" + why + ")" +
                           (override_path ? "" : ": no NVIDIA driver is installed");
    return false;
  }
  if (const char *missing = library->resolve(entry_points())) {
    unavailable_reason_ = library_path_ + " has no entry point " + missing +
                          ": the NVIDIA driver is older than loom supports";
    return false;
  }
  for (const EntryPoint &point : optional_entry_points()) // one by one: a missing one stays null
    (void)library->resolve({&point, 1});

  if (CUresult r = cuInit(0); r != CUDA_SUCCESS) {
    unavailable_reason_ = "cuInit failed: " + describe(r);
    return false;
  }
  if (CUresult r = cuDeviceGetCount(&device_count_); r != CUDA_SUCCESS) {
    unavailable_reason_ = "cuDeviceGetCount failed: " + describe(r);
    return false;
  }
  if (device_count_ <= 0) {
    unavailable_reason_ = "no CUDA device";
    return false;
  }
  return true;
}

std::string Driver::error_name(CUresult result) const {
  const char *name = nullptr;
  if (cuGetErrorName && cuGetErrorName(result, &name) == CUDA_SUCCESS && name)
    return name;
  if (const KnownResult *known = find_known(result))
    return known->name;
  return "CUDA error " + std::to_string(static_cast<int>(result));
}

std::string Driver::describe(CUresult result) const {
  const char *text = nullptr;
  std::string description;
  if (cuGetErrorString && cuGetErrorString(result, &text) == CUDA_SUCCESS && text)
    description = text;
  else if (const KnownResult *known = find_known(result))
    description = known->description;
  std::string name = error_name(result);
  if (description.empty())
    return name;
  return name + " (" + description + ")";
}

void Driver::check(CUresult result, const char *call) const {
  if (result != CUDA_SUCCESS)
    fail(result, call);
}

void Driver::fail(CUresult result, const std::string &call, const std::string &detail) const {
  std::string message = call + " failed: " + describe(result);
  if (corrupts_context(result)) {
    message += "; the GPU context is now unusable, so the process must restart to use the GPU";
    std::lock_guard<std::mutex> lock(poison_mutex_);
    if (!poisoned_.load(std::memory_order_relaxed)) {
      poison_call_ = call;
      poison_code_ = result;
      poison_message_ = call + " failed: " + describe(result) + detail;
      poisoned_.store(true, std::memory_order_release);
    }
  }
  message += detail;
  if (result == CUDA_ERROR_OUT_OF_MEMORY)
    throw OutOfMemoryError(call, result, error_name(result), message);
  throw DriverError(call, result, error_name(result), message);
}

void Driver::throw_if_poisoned() const {
  if (!poisoned())
    return;
  std::lock_guard<std::mutex> lock(poison_mutex_);
  throw ContextPoisonedError(poison_call_, poison_code_, error_name(poison_code_),
                             "the GPU context is unusable since " + poison_message_ +
                                 "; restart the process to use the GPU (the CPU target still "
                                 "works)");
}

} // namespace loom::runtime
