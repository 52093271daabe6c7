// loom_gpu_bench's compile-latency sections: how long loom takes from a kernel to PTX, stage by
// stage, and from PTX to machine code with each linker it can use (docs/decisions.md).
#include "GpuCompileBench.h"

#include "BenchSupport.h"
#include "Kernels.h"

#include "codegen/Codegen.h"
#include "ir/Lower.h"
#include "runtime/GpuContext.h"
#include "runtime/GpuLinker.h"
#include "runtime/GpuModule.h"
#include "runtime/NvJitLink.h"

#include <cstdlib>
#include <exception>
#include <optional>
#include <string>

namespace bench {

// DSL -> PTX for sm_90 (tracing, lowering, LLVM IR with libdevice, O3, the NVPTX backend), which
// needs no GPU: the median of many repetitions, total and per stage, after one call that pays the
// one-time costs (target machines, reading libdevice). Stages past tracing are timed inside
// codegen. Tracing (running the C++ lambda to build loom's IR, i.e. constructing the Kernel) is
// timed on its own and is not part of the total, which stays lowering to PTX.
void ptx_times() {
  constexpr int repetitions = 60;
  struct Case {
    const char *name;
    loom::Kernel (*make)(const std::string &);
  };
  const Case cases[] = {{"saxpy", bench::make_saxpy},
                        {"sum", bench::make_sum},
                        {"matmul", bench::make_matmul},
                        {"stencil", bench::make_stencil},
                        {"softmax", bench::make_softmax}};
  loom::codegen::GpuTarget target; // sm_90, the newest PTX ISA LLVM emits
  target.index32 = true;           // what a call with arrays of up to 2^30 elements runs
  std::printf("  medians of %d in ms: trace = C++ DSL to loom IR (not in the total); total = lower "
              "+ LLVM IR + O3 + PTX emission; /quick: a tiered kernel's quick code, its O3 column "
              "the short pipeline\n",
              repetitions);
  std::printf("  %-14s %6s %8s %7s %8s %7s %7s %7s %7s\n", "kernel", "bytes", "first", "trace",
              "total", "lower", "llvm-ir", "O3", "emit");
  // Each kernel's optimized code (O3), then its quick code (a tiered kernel's first code:
  // codegen::quick_pipeline, the backend at -O0).
  for (const Case &c : cases)
    for (bool quick : {false, true}) {
      target.quick = quick;
      const std::string kernel_name = std::string(c.name) + "_ptx";
      loom::Kernel kernel = c.make(kernel_name);
      std::vector<double> trace, total, lower, llvm_ir, optimize, emit;
      double first = 0;
      size_t bytes = 0;
      for (int r = 0; r <= repetitions; ++r) {
        std::optional<loom::Kernel> traced; // destroyed outside the timing
        double trace_ms = bench::wall_ms([&] { traced.emplace(c.make(kernel_name)); });
        loom::codegen::StageTimes stages;
        double lower_ms = 0;
        double ms = bench::wall_ms([&] {
          loom::ir::LoweredKernel lowered;
          // The code a call runs whose grid covers the domain (ir::LowerOptions).
          lower_ms = bench::wall_ms([&] {
            lowered = loom::ir::lower(kernel.ir(), loom::ir::Target::GPU, nullptr,
                                      {.covering_launch = true});
          });
          bytes = loom::codegen::emit_ptx(lowered, target, &stages).size();
        });
        if (r == 0) {
          first = ms;
          continue;
        }
        trace.push_back(trace_ms);
        total.push_back(ms);
        lower.push_back(lower_ms);
        llvm_ir.push_back(stages.llvm_ir_ms);
        optimize.push_back(stages.optimize_ms);
        emit.push_back(stages.emit_ms);
      }
      using bench::median;
      const std::string label = std::string(c.name) + (quick ? "/quick" : "");
      std::printf("  %-14s %6zu %8.3f %7.3f %8.3f %7.3f %7.3f %7.3f %7.3f\n", label.c_str(), bytes,
                  first, median(trace), median(total), median(lower), median(llvm_ir),
                  median(optimize), median(emit));
      std::string key = "loom_ptx_" + std::string(c.name) + (quick ? "_quick" : "");
      result((key + "_ms").c_str(), median(total), "ms");
      result((key + "_trace_ms").c_str(), median(trace), "ms");
      result((key + "_optimize_ms").c_str(), median(optimize), "ms");
      result((key + "_emit_ms").c_str(), median(emit), "ms");
    }
}

// PTX to machine code three ways, per kernel: the driver's linker (cuLinkCreate..cuLinkComplete),
// nvJitLink in the process, and the driver's JIT at load (cuModuleLoadDataEx on the PTX, which
// also loads the module; "cubin load" is that step alone for a linked cubin). The JIT figure
// means something only with CUDA_CACHE_DISABLE=1: else the driver's disk cache answers the
// repetitions (run_gpu.sh runs this section on its own with it set).
bool linker_times() {
  const char *cache = std::getenv("CUDA_CACHE_DISABLE");
  if (!cache || std::string(cache) != "1")
    std::printf("  note: CUDA_CACHE_DISABLE is not 1, so the driver's JIT cache may answer the "
                "JIT repetitions\n");
  const loom::runtime::DeviceInfo &d = loom::runtime::GpuContext::get().info();
  const loom::runtime::NvJitLink &nvjitlink = loom::runtime::NvJitLink::get();
  if (nvjitlink.available())
    std::printf("  nvJitLink %s (%s); driver %d.%d%s\n", nvjitlink.version_text().c_str(),
                nvjitlink.library().c_str(), d.driver_version / 1000, d.driver_version % 1000 / 10,
                nvjitlink.version() > d.driver_version
                    ? ": newer than the driver, so LOOM_PTX_LINKER=auto would not use it"
                    : "");
  else
    std::printf("  nvJitLink: not measured, it cannot be used: %s\n",
                nvjitlink.unavailable_reason().c_str());
  std::printf("  kernels' machine code here (LOOM_PTX_LINKER): %s\n",
              loom::runtime::ptx_linker_description().c_str());

  constexpr int repetitions = 15;
  struct Case {
    const char *name;
    loom::Kernel kernel;
  };
  Case cases[] = {{"saxpy", bench::make_saxpy("saxpy_link")},
                  {"matmul", bench::make_matmul("matmul_link")}};
  bool ok = true;
  for (Case &c : cases) {
    std::string ptx = c.kernel.ptx(), cubin;
    std::vector<double> driver, nvjit, load, jit;
    for (int r = 0; r < repetitions; ++r) {
      driver.push_back(bench::wall_ms([&] {
        cubin = loom::runtime::link_ptx(ptx, c.name, loom::runtime::PtxLinkerMode::Driver);
      }));
      std::optional<loom::runtime::GpuModule> module; // unloaded outside the timings
      load.push_back(
          bench::wall_ms([&] { module.emplace(loom::runtime::GpuModule::from_cubin(cubin)); }));
      if (nvjitlink.available()) {
        std::string linked;
        nvjit.push_back(bench::wall_ms([&] {
          linked = loom::runtime::link_ptx(ptx, c.name, loom::runtime::PtxLinkerMode::NvJitLink);
        }));
        if (r == 0) { // nvJitLink's machine code must load too, unless it is newer than the driver
          try {
            loom::runtime::GpuModule::from_cubin(linked);
          } catch (const std::exception &e) {
            bool newer = nvjitlink.version() > d.driver_version;
            std::printf("%s: nvJitLink's cubin for %s does not load: %s\n",
                        newer ? "  note (nvJitLink is newer than the driver)" : "CHECK FAIL",
                        c.name, e.what());
            ok &= newer;
          }
        }
      }
      module.reset();
      jit.push_back(bench::wall_ms([&] { module.emplace(ptx); }));
    }
    double driver_ms = bench::median(driver), load_ms = bench::median(load),
           jit_ms = bench::median(jit), nvjit_ms = bench::median(nvjit);
    std::printf("  %s (%zu bytes of PTX), medians of %d: driver's linker %.3f ms, cubin load "
                "%.3f ms, driver JIT at load %.3f ms\n",
                c.name, ptx.size(), repetitions, driver_ms, load_ms, jit_ms);
    if (!nvjit.empty())
      std::printf("    nvJitLink %.3f ms; driver's linker / nvJitLink: %.2f; JIT at load / "
                  "(nvJitLink + cubin load): %.2f\n",
                  nvjit_ms, driver_ms / nvjit_ms, jit_ms / (nvjit_ms + load_ms));
    else
      std::printf("    nvJitLink absent\n");
    std::string prefix = "loom_link_" + std::string(c.name);
    result((prefix + "_driver_ms").c_str(), driver_ms, "ms");
    result((prefix + "_cubin_load_ms").c_str(), load_ms, "ms");
    result((prefix + "_jit_load_ms").c_str(), jit_ms, "ms");
    result((prefix + "_driver_and_load_ms").c_str(), driver_ms + load_ms, "ms");
    if (!nvjit.empty())
      result((prefix + "_nvjitlink_ms").c_str(), nvjit_ms, "ms");
  }
  return ok;
}

} // namespace bench
