// dsl-to-ptx prints what the library compiles: for every example kernel and every GPU variant,
// the tool's --emit=ptx (and the other stages) with that variant's flags equals the Kernel's
// stage call for the same variant, byte for byte.
#include <loom/loom.hpp>

#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace {

std::string read_file(const std::filesystem::path &path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// The build's dsl-to-ptx, else (in an installed tree: tests/ beside bin/) the one installed.
std::string tool_path() {
  if (std::filesystem::exists(LOOM_DSL_TO_PTX))
    return LOOM_DSL_TO_PTX;
  return (std::filesystem::read_symlink("/proc/self/exe").parent_path() / "../bin/dsl-to-ptx")
      .string();
}

// The source tree's examples/dsl, else the one under the working directory.
std::string examples_dsl() {
  if (std::filesystem::exists(LOOM_EXAMPLES_DSL))
    return LOOM_EXAMPLES_DSL;
  return "examples/dsl";
}

// The tool's standard output for `arguments`; fails the test on a non-zero exit.
std::string run_tool(const std::string &arguments) {
  std::string command = tool_path() + " " + arguments + " 2>/dev/null";
  FILE *pipe = popen(command.c_str(), "r");
  EXPECT_NE(pipe, nullptr) << command;
  if (!pipe)
    return "";
  std::string out;
  std::array<char, 65536> chunk;
  while (size_t n = std::fread(chunk.data(), 1, chunk.size(), pipe))
    out.append(chunk.data(), n);
  int status = pclose(pipe);
  EXPECT_EQ(status, 0) << command;
  return out;
}

struct GpuVariantFlags {
  const char *flags;
  loom::VariantRequest request;
};

const std::vector<GpuVariantFlags> &gpu_variants() {
  static const std::vector<GpuVariantFlags> variants = {
      {"--sm=sm_90 --index-bits=32 --launch=covering",
       {.sm = "sm_90", .index32 = true, .covering = true}},
      {"--sm=sm_90 --index-bits=32 --launch=grid-stride",
       {.sm = "sm_90", .index32 = true, .covering = false}},
      {"--sm=sm_90 --index-bits=64 --launch=covering",
       {.sm = "sm_90", .index32 = false, .covering = true}},
      {"--sm=sm_90 --index-bits=64 --launch=grid-stride",
       {.sm = "sm_90", .index32 = false, .covering = false}},
      {"--sm=sm_80 --tier=quick", {.sm = "sm_80", .tier = loom::Tier::Quick}},
      {"--sm=sm_90 --ptx-version=7.8", {.sm = "sm_90", .ptx_version = 78}},
  };
  return variants;
}

std::vector<std::filesystem::path> example_files() {
  std::vector<std::filesystem::path> files;
  for (const auto &entry : std::filesystem::directory_iterator(examples_dsl()))
    if (entry.path().extension() == ".loom")
      files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  return files;
}

TEST(DslToPtx, EveryExampleKernelsPtxEqualsTheLibrarysForEveryVariant) {
  auto files = example_files();
  ASSERT_GE(files.size(), 6u) << examples_dsl();
  int compared = 0;
  for (const auto &file : files) {
    loom::Module m = loom::compile(read_file(file), file.string());
    for (const std::string &name : m.names())
      for (const GpuVariantFlags &v : gpu_variants()) {
        std::string tool = run_tool(file.string() + " --kernel=" + name + " " + v.flags);
        std::string library = m[name].ptx(v.request);
        ASSERT_FALSE(library.empty());
        EXPECT_EQ(tool, library) << file << " kernel " << name << " " << v.flags;
        ++compared;
      }
  }
  EXPECT_GE(compared, 36);
}

// Without flags, the tool shows what a call with arrays of at most 2^30 elements runs (here,
// with no GPU: sm_90, 32-bit indices, covering launches where the kernel allows them).
TEST(DslToPtx, DefaultsAreTheVariantACallRuns) {
  for (const auto &file : example_files()) {
    loom::Module m = loom::compile(read_file(file), file.string());
    for (const std::string &name : m.names()) {
      const loom::Kernel &k = m[name];
      loom::Variant v = k.variant({.target = loom::Target::GPU});
      EXPECT_TRUE(v.index32) << v.to_string();
      EXPECT_TRUE(v.covering) << v.to_string();
      EXPECT_EQ(v.tier, loom::Tier::Optimized);
      EXPECT_EQ(run_tool(file.string() + " --kernel=" + name), k.ptx()) << file << " " << name;
      EXPECT_EQ(run_tool(file.string() + " --kernel=" + name + " --emit=lowered"),
                k.lowered({.target = loom::Target::GPU}))
          << file << " " << name;
      EXPECT_EQ(run_tool(file.string() + " --kernel=" + name + " --emit=llvm-opt --target=cpu"),
                k.llvm({.target = loom::Target::CPU}, true))
          << file << " " << name;
      EXPECT_EQ(run_tool(file.string() + " --kernel=" + name + " --emit=llvm --index-bits=64"),
                k.llvm({.target = loom::Target::GPU, .index32 = false}, false))
          << file << " " << name;
    }
  }
}

// @kernel(fastmath=True): the tool's PTX approximates division and square root, as the
// library's does; without it both are rounded to nearest.
TEST(DslToPtx, FastMathKernelsPtxHasApproximateDivisionAndSquareRoot) {
  const std::string source = R"(
@kernel(fastmath=True)
def fast(x: f32[n], y: f32[n]):
    for i in parallel(n):
        y[i] = sqrt(x[i]) / (y[i] + 1.0)

@kernel
def exact(x: f32[n], y: f32[n]):
    for i in parallel(n):
        y[i] = sqrt(x[i]) / (y[i] + 1.0)
)";
  std::filesystem::path file = std::filesystem::temp_directory_path() /
                               ("loom_fastmath_" + std::to_string(::getpid()) + ".loom");
  {
    std::ofstream out(file);
    out << source;
  }
  loom::Module m = loom::compile(source, file.string());
  std::string fast = run_tool(file.string() + " --kernel=fast");
  std::string exact = run_tool(file.string() + " --kernel=exact");
  std::filesystem::remove(file);
  EXPECT_EQ(fast, m["fast"].ptx());
  EXPECT_EQ(exact, m["exact"].ptx());
  EXPECT_NE(fast.find("div.approx"), std::string::npos) << fast;
  EXPECT_NE(fast.find("sqrt.approx"), std::string::npos) << fast;
  EXPECT_EQ(fast.find("div.rn.f32"), std::string::npos) << fast;
  EXPECT_NE(exact.find("div.rn.f32"), std::string::npos) << exact;
  EXPECT_NE(exact.find("sqrt.rn.f32"), std::string::npos) << exact;
  EXPECT_EQ(exact.find("div.approx"), std::string::npos) << exact;
}

// A kernel's dumps follow its launch settings as a call does: with Kernel::shape the launch may
// not cover the domain, so the default variant is the grid-stride code. (The matmul's iterations
// run a loop, which is what makes covering code differ.)
TEST(DslToPtx, ShapedKernelsDumpTheGridStrideVariant) {
  loom::Module m = loom::compile(read_file(std::filesystem::path(examples_dsl()) / "matmul.loom"));
  loom::Kernel &k = m["matmul"];
  EXPECT_TRUE(k.variant({.target = loom::Target::GPU}).covering);
  k.shape(64, 128);
  loom::Variant v = k.variant({.target = loom::Target::GPU});
  EXPECT_FALSE(v.covering) << v.to_string();
  EXPECT_EQ(k.ptx(), k.ptx(loom::VariantRequest{.index32 = true, .covering = false}));
  EXPECT_NE(k.ptx(), k.ptx(loom::VariantRequest{.index32 = true, .covering = true}));
}

} // namespace
