// PTX to machine code through the CUDA toolkit's PTX compiler library (nvPTXCompiler), the
// in-process option loom cannot take: it ships only as a static archive
// (libnvptxcompiler_static.a), so loom could use it only by linking it in, not by loading it at
// run time as it loads the driver and nvJitLink. This program measures it beside gpu_bench's
// "PTX to machine code" figures (the driver's linker, nvJitLink), on PTX that dsl-to-ptx wrote.
// It does not link loom and needs no GPU.
//
//   ptx_compiler_reference sm_90 saxpy.ptx matmul.ptx
//
// For each file: one untimed compile (loading the library's code and data into the caches), then
// the median of `repetitions` timed ones, each Create, Compile (--gpu-name=sm_XX -O3),
// GetCompiledProgramSize, GetCompiledProgram and Destroy, as a user of the library would run
// them. Prints `RESULT nvptxcompiler_<name>_ms <median> ms`, <name> the file's name without
// directory and extension. Build: g++ -O2 -std=c++20 -I$CUDA/include ptx_compiler_reference.cpp
// -L$CUDA/lib64 -lnvptxcompiler_static -lpthread (bench/run_gpu.sh does).
#include <nvPTXCompiler.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace {

constexpr int repetitions = 20;

struct CompileError {
  std::string message;
};

const char *result_name(nvPTXCompileResult result) {
  switch (result) {
  case NVPTXCOMPILE_SUCCESS:
    return "NVPTXCOMPILE_SUCCESS";
  case NVPTXCOMPILE_ERROR_INVALID_COMPILER_HANDLE:
    return "NVPTXCOMPILE_ERROR_INVALID_COMPILER_HANDLE";
  case NVPTXCOMPILE_ERROR_INVALID_INPUT:
    return "NVPTXCOMPILE_ERROR_INVALID_INPUT";
  case NVPTXCOMPILE_ERROR_COMPILATION_FAILURE:
    return "NVPTXCOMPILE_ERROR_COMPILATION_FAILURE";
  case NVPTXCOMPILE_ERROR_INTERNAL:
    return "NVPTXCOMPILE_ERROR_INTERNAL";
  case NVPTXCOMPILE_ERROR_OUT_OF_MEMORY:
    return "NVPTXCOMPILE_ERROR_OUT_OF_MEMORY";
  case NVPTXCOMPILE_ERROR_UNSUPPORTED_PTX_VERSION:
    return "NVPTXCOMPILE_ERROR_UNSUPPORTED_PTX_VERSION";
  default:
    return "another nvPTXCompileResult";
  }
}

// Owns one compiler handle, destroyed on every path out (the Destroy is part of the timing).
class Compiler {
public:
  explicit Compiler(const std::string &ptx) {
    check(nvPTXCompilerCreate(&handle_, ptx.size(), ptx.data()), "nvPTXCompilerCreate");
  }
  ~Compiler() {
    if (handle_)
      nvPTXCompilerDestroy(&handle_);
  }
  Compiler(const Compiler &) = delete;
  Compiler &operator=(const Compiler &) = delete;

  // Compiles and returns the machine code's size; a failed compile throws with the error log.
  size_t compile(const std::vector<const char *> &options) {
    nvPTXCompileResult result =
        nvPTXCompilerCompile(handle_, static_cast<int>(options.size()), options.data());
    if (result != NVPTXCOMPILE_SUCCESS)
      throw CompileError{"nvPTXCompilerCompile failed: " + std::string(result_name(result)) + "\n" +
                         error_log()};
    size_t bytes = 0;
    check(nvPTXCompilerGetCompiledProgramSize(handle_, &bytes),
          "nvPTXCompilerGetCompiledProgramSize");
    std::vector<char> image(bytes);
    check(nvPTXCompilerGetCompiledProgram(handle_, image.data()),
          "nvPTXCompilerGetCompiledProgram");
    return bytes;
  }

  void destroy() {
    nvPTXCompilerHandle handle = handle_;
    handle_ = nullptr;
    check(nvPTXCompilerDestroy(&handle), "nvPTXCompilerDestroy");
  }

private:
  void check(nvPTXCompileResult result, const char *call) {
    if (result != NVPTXCOMPILE_SUCCESS)
      throw CompileError{std::string(call) + " failed: " + result_name(result)};
  }
  std::string error_log() {
    size_t bytes = 0;
    if (!handle_ || nvPTXCompilerGetErrorLogSize(handle_, &bytes) != NVPTXCOMPILE_SUCCESS)
      return "(no error log)";
    std::string log(bytes, '\0');
    if (bytes && nvPTXCompilerGetErrorLog(handle_, log.data()) != NVPTXCOMPILE_SUCCESS)
      return "(the error log could not be read)";
    return log.c_str(); // the library counts the terminating NUL
  }

  nvPTXCompilerHandle handle_ = nullptr;
};

// One whole compile, as a user runs it; returns the machine code's size.
size_t compile_once(const std::string &ptx, const std::vector<const char *> &options) {
  Compiler compiler(ptx);
  size_t bytes = compiler.compile(options);
  compiler.destroy();
  return bytes;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

std::string stem(const std::string &path) {
  std::string name = path.substr(path.find_last_of('/') + 1);
  return name.substr(0, name.find('.'));
}

} // namespace

int main(int argc, char **argv) {
  if (argc < 3 || std::string(argv[1]).rfind("sm_", 0) != 0) {
    std::fprintf(stderr, "usage: %s sm_XY FILE.ptx...\n", argv[0]);
    return 2;
  }
  unsigned major = 0, minor = 0;
  nvPTXCompileResult version = nvPTXCompilerGetVersion(&major, &minor);
  if (version != NVPTXCOMPILE_SUCCESS) {
    std::printf("CHECK FAIL: nvPTXCompilerGetVersion failed: %s\n", result_name(version));
    return 1;
  }
  const std::string gpu_name = "--gpu-name=" + std::string(argv[1]);
  const std::vector<const char *> options = {gpu_name.c_str(), "-O3"};
  std::printf("  nvPTXCompiler %u.%u, %s -O3, medians of %d after one untimed compile\n", major,
              minor, gpu_name.c_str(), repetitions);
  bool ok = true;
  for (int f = 2; f < argc; ++f) {
    const std::string path = argv[f];
    std::ifstream in(path, std::ios::binary);
    if (!in) {
      std::printf("CHECK FAIL: cannot read %s\n", path.c_str());
      ok = false;
      continue;
    }
    std::ostringstream text;
    text << in.rdbuf();
    const std::string ptx = text.str();
    try {
      size_t bytes = compile_once(ptx, options);
      std::vector<double> ms;
      for (int r = 0; r < repetitions; ++r) {
        auto start = std::chrono::steady_clock::now();
        compile_once(ptx, options);
        ms.push_back(
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
                .count());
      }
      std::printf("  %s (%zu bytes of PTX -> %zu bytes of machine code): median %.3f ms (min "
                  "%.3f, max %.3f)\n",
                  path.c_str(), ptx.size(), bytes, median(ms),
                  *std::min_element(ms.begin(), ms.end()), *std::max_element(ms.begin(), ms.end()));
      std::printf("RESULT nvptxcompiler_%s_ms %.3f ms\n", stem(path).c_str(), median(ms));
    } catch (const CompileError &e) {
      std::printf("CHECK FAIL: %s: %s\n", path.c_str(), e.message.c_str());
      ok = false;
    }
  }
  return ok ? 0 : 1;
}
