// The CUDA driver's handle types, apart from the rest of its API (runtime/CudaApi.h), so that
// the public headers that hold a device address or a stream (DeviceArray, Stream) declare none
// of the driver's functions, enums or error codes.
#pragma once

namespace loom::runtime {

using CUdevice = int;
using CUdeviceptr = unsigned long long; // 64-bit device address (cuda.h's CUdeviceptr_v2)

// Opaque handles; the structs are never defined, as in cuda.h.
using CUcontext = struct CUctx_st *;
using CUmodule = struct CUmod_st *;
using CUfunction = struct CUfunc_st *;
using CUstream = struct CUstream_st *;
using CUevent = struct CUevent_st *;
using CUgraph = struct CUgraph_st *;
using CUgraphExec = struct CUgraphExec_st *;
using CUlinkState = struct CUlinkState_st *;

} // namespace loom::runtime
