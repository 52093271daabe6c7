// loom's own declarations of the small part of the CUDA driver API it uses (Halide's mini_cuda.h
// does the same). loom builds with no CUDA toolkit and loads the driver at run time (Driver.h), so
// nothing here comes from cuda.h; the values below are the driver's ABI and must never change.
#pragma once

#include "runtime/CudaTypes.h"

#include <cstddef>

namespace loom::runtime {

// Result codes of every driver call. Only the codes loom names are listed; the driver may return
// others, which Driver::check reports by number and by the driver's own name for them.
enum CUresult : int {
  CUDA_SUCCESS = 0,
  CUDA_ERROR_INVALID_VALUE = 1,
  CUDA_ERROR_OUT_OF_MEMORY = 2,
  CUDA_ERROR_NOT_INITIALIZED = 3,
  CUDA_ERROR_DEINITIALIZED = 4,
  CUDA_ERROR_STUB_LIBRARY = 34,
  CUDA_ERROR_DEVICE_UNAVAILABLE = 46,
  CUDA_ERROR_NO_DEVICE = 100,
  CUDA_ERROR_INVALID_DEVICE = 101,
  CUDA_ERROR_INVALID_IMAGE = 200,
  CUDA_ERROR_INVALID_CONTEXT = 201,
  CUDA_ERROR_NO_BINARY_FOR_GPU = 209,
  CUDA_ERROR_INVALID_PTX = 218,
  CUDA_ERROR_JIT_COMPILER_NOT_FOUND = 221,
  CUDA_ERROR_UNSUPPORTED_PTX_VERSION = 222,
  CUDA_ERROR_INVALID_HANDLE = 400,
  CUDA_ERROR_NOT_FOUND = 500,
  CUDA_ERROR_NOT_READY = 600,
  CUDA_ERROR_ILLEGAL_ADDRESS = 700,
  CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES = 701,
  CUDA_ERROR_LAUNCH_TIMEOUT = 702,
  CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED = 704,
  CUDA_ERROR_ASSERT = 710,
  CUDA_ERROR_HARDWARE_STACK_ERROR = 714,
  CUDA_ERROR_ILLEGAL_INSTRUCTION = 715,
  CUDA_ERROR_MISALIGNED_ADDRESS = 716,
  CUDA_ERROR_INVALID_ADDRESS_SPACE = 717,
  CUDA_ERROR_INVALID_PC = 718,
  CUDA_ERROR_LAUNCH_FAILED = 719,
  CUDA_ERROR_NOT_PERMITTED = 800,
  CUDA_ERROR_NOT_SUPPORTED = 801,
  CUDA_ERROR_SYSTEM_DRIVER_MISMATCH = 803,
  CUDA_ERROR_UNKNOWN = 999,
};

// The handle types (CUdeviceptr, CUstream, ...) are in runtime/CudaTypes.h.

enum CUdevice_attribute : int {
  CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 1,
  CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X = 2,
  CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y = 3,
  CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z = 4,
  CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X = 5,
  CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y = 6,
  CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z = 7,
  CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK = 8,
  CU_DEVICE_ATTRIBUTE_WARP_SIZE = 10,
  CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 16,
  CU_DEVICE_ATTRIBUTE_PCI_BUS_ID = 33,
  CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID = 34,
  CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR = 39,
  CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75,
  CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76,
  CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID = 50,
  CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN = 97,
};

enum CUlimit : int {
  CU_LIMIT_PRINTF_FIFO_SIZE = 1,
};

enum CUfunction_attribute : int {
  CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 0,
  CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES = 1,
  CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES = 2,
  CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES = 3,
  CU_FUNC_ATTRIBUTE_NUM_REGS = 4,
  CU_FUNC_ATTRIBUTE_PTX_VERSION = 5,
  CU_FUNC_ATTRIBUTE_BINARY_VERSION = 6,
  CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8,
};

// Options of cuModuleLoadDataEx (the driver's PTX JIT).
enum CUjit_option : int {
  CU_JIT_MAX_REGISTERS = 0,
  CU_JIT_THREADS_PER_BLOCK = 1,
  CU_JIT_WALL_TIME = 2,
  CU_JIT_INFO_LOG_BUFFER = 3,
  CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES = 4,
  CU_JIT_ERROR_LOG_BUFFER = 5,
  CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6,
  CU_JIT_OPTIMIZATION_LEVEL = 7,
  CU_JIT_LOG_VERBOSE = 12,
};

// What cuLinkAddData is given.
enum CUjitInputType : int {
  CU_JIT_INPUT_CUBIN = 0,
  CU_JIT_INPUT_PTX = 1,
};

enum CUevent_flags : unsigned {
  CU_EVENT_DEFAULT = 0,
  CU_EVENT_BLOCKING_SYNC = 1,
};

enum CUstream_flags : unsigned {
  CU_STREAM_DEFAULT = 0,
  CU_STREAM_NON_BLOCKING = 1, // does not synchronize with the legacy default stream
};

// How a stream capture treats unsafe calls of other threads (cuStreamBeginCapture).
enum CUstreamCaptureMode : unsigned {
  CU_STREAM_CAPTURE_MODE_GLOBAL = 0,
  CU_STREAM_CAPTURE_MODE_THREAD_LOCAL = 1, // only the capturing thread's unsafe calls fail
  CU_STREAM_CAPTURE_MODE_RELAXED = 2,
};

// cuLaunchKernelEx's launch attributes: only the one loom sets is named.
enum CUlaunchAttributeID : int {
  // Nonzero: the launch may begin before the kernel before it in the stream has finished; its
  // kernel waits for that one with griddepcontrol.wait (programmatic dependent launch, sm_90 on).
  CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION = 6,
};
// An attribute's value: a union padded to 64 bytes, of which loom uses one int.
union CUlaunchAttributeValue {
  char pad[64];
  int programmaticStreamSerializationAllowed;
};
struct CUlaunchAttribute {
  CUlaunchAttributeID id;
  char pad[8 - sizeof(CUlaunchAttributeID)];
  CUlaunchAttributeValue value;
};
static_assert(sizeof(CUlaunchAttribute) == 72, "cuda.h's CUlaunchAttribute is 72 bytes");
struct CUlaunchConfig {
  unsigned int gridDimX, gridDimY, gridDimZ;
  unsigned int blockDimX, blockDimY, blockDimZ;
  unsigned int sharedMemBytes;
  CUstream hStream;
  CUlaunchAttribute *attrs;
  unsigned int numAttrs;
};

// Dynamic shared memory needed for a block size (cuOccupancyMaxPotentialBlockSize's callback).
using CUoccupancyB2DSize = size_t (*)(int block_size);

// Every entry point loom calls: X(symbol, parameter list). Driver.h turns this one list into
// function-pointer members and resolves each by the symbol's exact name (the _v2 names are the
// ones cuda.h's macros select today, so loom gets the current ABI of each call).
#define LOOM_CUDA_ENTRY_POINTS(X)                                                                  \
  X(cuGetErrorName, (CUresult error, const char **text))                                           \
  X(cuGetErrorString, (CUresult error, const char **text))                                         \
  X(cuInit, (unsigned int flags))                                                                  \
  X(cuDriverGetVersion, (int *version))                                                            \
  X(cuDeviceGetCount, (int *count))                                                                \
  X(cuDeviceGet, (CUdevice * device, int ordinal))                                                 \
  X(cuDeviceGetName, (char *name, int length, CUdevice device))                                    \
  X(cuDeviceGetAttribute, (int *value, CUdevice_attribute attribute, CUdevice device))             \
  X(cuDeviceTotalMem_v2, (size_t * bytes, CUdevice device))                                        \
  X(cuDevicePrimaryCtxRetain, (CUcontext * context, CUdevice device))                              \
  X(cuCtxSetCurrent, (CUcontext context))                                                          \
  X(cuCtxGetCurrent, (CUcontext * context))                                                        \
  X(cuCtxPushCurrent_v2, (CUcontext context))                                                      \
  X(cuCtxPopCurrent_v2, (CUcontext * context))                                                     \
  X(cuCtxSynchronize, ())                                                                          \
  X(cuCtxSetLimit, (CUlimit limit, size_t value))                                                  \
  X(cuMemGetInfo_v2, (size_t * free_bytes, size_t * total_bytes))                                  \
  X(cuMemAlloc_v2, (CUdeviceptr * pointer, size_t bytes))                                          \
  X(cuMemFree_v2, (CUdeviceptr pointer))                                                           \
  X(cuMemAllocHost_v2, (void **pointer, size_t bytes))                                             \
  X(cuMemFreeHost, (void *pointer))                                                                \
  X(cuMemcpyHtoD_v2, (CUdeviceptr destination, const void *source, size_t bytes))                  \
  X(cuMemcpyDtoH_v2, (void *destination, CUdeviceptr source, size_t bytes))                        \
  X(cuMemcpyDtoD_v2, (CUdeviceptr destination, CUdeviceptr source, size_t bytes))                  \
  X(cuMemcpyPeer, (CUdeviceptr destination, CUcontext destination_context, CUdeviceptr source,     \
                   CUcontext source_context, size_t bytes))                                        \
  X(cuDeviceCanAccessPeer, (int *can_access, CUdevice device, CUdevice peer))                      \
  X(cuCtxEnablePeerAccess, (CUcontext peer, unsigned int flags))                                   \
  X(cuMemcpyHtoDAsync_v2,                                                                          \
    (CUdeviceptr destination, const void *source, size_t bytes, CUstream stream))                  \
  X(cuMemcpyDtoHAsync_v2, (void *destination, CUdeviceptr source, size_t bytes, CUstream stream))  \
  X(cuModuleLoadDataEx, (CUmodule * module, const void *image, unsigned int option_count,          \
                         CUjit_option *options, void **option_values))                             \
  X(cuModuleLoadData, (CUmodule * module, const void *image))                                      \
  X(cuModuleGetFunction, (CUfunction * function, CUmodule module, const char *name))               \
  X(cuModuleUnload, (CUmodule module))                                                             \
  X(cuLinkCreate_v2,                                                                               \
    (unsigned int option_count, CUjit_option *options, void **option_values, CUlinkState *state))  \
  X(cuLinkAddData_v2,                                                                              \
    (CUlinkState state, CUjitInputType type, void *data, size_t bytes, const char *name,           \
     unsigned int option_count, CUjit_option *options, void **option_values))                      \
  X(cuLinkComplete, (CUlinkState state, void **cubin, size_t *bytes))                              \
  X(cuLinkDestroy, (CUlinkState state))                                                            \
  X(cuFuncGetAttribute, (int *value, CUfunction_attribute attribute, CUfunction function))         \
  X(cuFuncSetAttribute, (CUfunction function, CUfunction_attribute attribute, int value))          \
  X(cuOccupancyMaxPotentialBlockSize, (int *min_grid_size, int *block_size, CUfunction function,   \
                                       CUoccupancyB2DSize dynamic_shared_bytes_for_block_size,     \
                                       size_t dynamic_shared_bytes, int block_size_limit))         \
  X(cuOccupancyMaxActiveBlocksPerMultiprocessor,                                                   \
    (int *block_count, CUfunction function, int block_size, size_t dynamic_shared_bytes))          \
  X(cuLaunchKernel,                                                                                \
    (CUfunction function, unsigned int grid_x, unsigned int grid_y, unsigned int grid_z,           \
     unsigned int block_x, unsigned int block_y, unsigned int block_z, unsigned int shared_bytes,  \
     CUstream stream, void **params, void **extra))                                                \
  X(cuStreamCreate, (CUstream * stream, unsigned int flags))                                       \
  X(cuStreamDestroy_v2, (CUstream stream))                                                         \
  X(cuStreamSynchronize, (CUstream stream))                                                        \
  X(cuEventCreate, (CUevent * event, unsigned int flags))                                          \
  X(cuEventRecord, (CUevent event, CUstream stream))                                               \
  X(cuEventSynchronize, (CUevent event))                                                           \
  X(cuEventQuery, (CUevent event))                                                                 \
  X(cuEventElapsedTime_v2, (float *milliseconds, CUevent start, CUevent end))                      \
  X(cuEventDestroy_v2, (CUevent event))                                                            \
  X(cuStreamBeginCapture_v2, (CUstream stream, CUstreamCaptureMode mode))                          \
  X(cuStreamEndCapture, (CUstream stream, CUgraph * graph))                                        \
  X(cuGraphInstantiateWithFlags, (CUgraphExec * exec, CUgraph graph, unsigned long long flags))    \
  X(cuGraphLaunch, (CUgraphExec exec, CUstream stream))                                            \
  X(cuGraphExecDestroy, (CUgraphExec exec))                                                        \
  X(cuGraphDestroy, (CUgraph graph))

// Entry points of newer drivers that loom uses where the driver has them and otherwise does
// without (Driver.h leaves them null): cuLaunchKernelEx arrived with CUDA 12.0.
#define LOOM_CUDA_OPTIONAL_ENTRY_POINTS(X)                                                         \
  X(cuLaunchKernelEx,                                                                              \
    (const CUlaunchConfig *config, CUfunction function, void **params, void **extra))

// Function-pointer types, one per entry point: cuInit_fn, cuMemAlloc_v2_fn, ...
#define LOOM_CUDA_DECLARE_FN_TYPE(name, params) using name##_fn = CUresult(*) params;
LOOM_CUDA_ENTRY_POINTS(LOOM_CUDA_DECLARE_FN_TYPE)
LOOM_CUDA_OPTIONAL_ENTRY_POINTS(LOOM_CUDA_DECLARE_FN_TYPE)
#undef LOOM_CUDA_DECLARE_FN_TYPE

} // namespace loom::runtime
