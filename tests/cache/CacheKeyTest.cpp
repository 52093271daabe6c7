// Cache keys: the canonical lowered IR tells apart kernels whose readable text is the same, and
// every option, the toolchain and the device are part of the key.
#include "CacheTestUtil.h"

#include "ir/Lower.h"
#include "ir/Printer.h"
#include "loom/CacheKey.h"
#include "runtime/GpuContext.h"
#include "support/BuildId.h"

#include <llvm/Config/llvm-config.h>

using namespace loom;
using namespace loomtest;

namespace {

ir::LoweredKernel lowered(const Kernel &k, ir::Target target = ir::Target::CPU) {
  return ir::lower(k.ir(), target);
}

Kernel scale(double factor) {
  return kernel("scale", [factor](Array<double> x) {
    parallel_for(x.size(), [&](Index i) { x[i] = x[i] * factor; });
  });
}

TEST(CacheKey, CanonicalTextKeepsF64ConstantsExact) {
  ir::LoweredKernel a = lowered(scale(0.1)), b = lowered(scale(0.1 + 1e-15));
  EXPECT_EQ(ir::to_string(a), ir::to_string(b)) << "the readable text rounds (%.9g)";
  EXPECT_NE(ir::canonical_text(a), ir::canonical_text(b));
  EXPECT_NE(cpu_object_key(a).digest, cpu_object_key(b).digest);
}

// Three locals named "x", "x" and "x.1": the readable printer calls the second "x.1" too.
Kernel same_names(bool use_second) {
  return kernel("names", [use_second](Array<float> y) {
    parallel_for(y.size(), [&](Index i) {
      Var<float> a("x", 1.0f), b("x", 2.0f), c("x.1", 3.0f);
      // Every local read (none is dropped), b - c or c - b: "x.1 - x.1" either way.
      y[i] = a + (use_second ? b - c : c - b);
    });
  });
}

TEST(CacheKey, CanonicalTextTellsVariablesWithTheSameNameApart) {
  ir::LoweredKernel a = lowered(same_names(true)), b = lowered(same_names(false));
  EXPECT_EQ(ir::to_string(a), ir::to_string(b)) << "the readable text cannot tell them apart";
  EXPECT_NE(ir::canonical_text(a), ir::canonical_text(b));
}

TEST(CacheKey, CanonicalTextTellsArraysWithTheSameNameApart) {
  auto copy = [](bool forward) {
    return kernel("copy",
                  [forward](Array<float> p, Array<float> q) {
                    parallel_for(p.size(), [&](Index i) {
                      if (forward)
                        q[i] = p[i];
                      else
                        p[i] = q[i];
                    });
                  },
                  {"a", "a"});
  };
  ir::LoweredKernel a = lowered(copy(true)), b = lowered(copy(false));
  EXPECT_EQ(ir::to_string(a), ir::to_string(b));
  EXPECT_NE(ir::canonical_text(a), ir::canonical_text(b));
}

TEST(CacheKey, CanonicalTextListsVariableTypesAndEscapesNames) {
  Kernel k = kernel(
      "odd name", [](F32 a, Array<float> y) { parallel_for(y.size(), [&](Index i) { y[i] = a; }); },
      {"a: f64", "y"});
  std::string text = ir::canonical_text(lowered(k));
  EXPECT_NE(std::string::npos, text.find("kernel odd\\x20name(a\\x3a\\x20f64: f32, y: f32[?])"))
      << text;
  EXPECT_NE(std::string::npos, text.find("variables:\n  a\\x3a\\x20f64%0: f32\n")) << text;
  EXPECT_NE(std::string::npos, text.find(": i64\n")) << "loop indices have their type\n" << text;
}

TEST(CacheKey, TwoTracesOfTheSameKernelHaveTheSameKey) {
  EXPECT_EQ(cpu_object_key(lowered(make_matmul())).text,
            cpu_object_key(lowered(make_matmul())).text);
  EXPECT_NE(cpu_object_key(lowered(make_matmul())).digest,
            cpu_object_key(lowered(make_saxpy())).digest);
}

// A kernel with a dynamic shared array is other code than one with a static array of any size
// (its extent is read at launch; the size itself is no part of the key: one compile serves every
// launch), and than one whose dynamic array holds another type.
TEST(CacheKey, DynamicSharedArraysAreTheirOwnCode) {
  auto reverse = [](int kind) {
    return simt_kernel("reverse", [kind](Array<float> x) {
      auto copy = [&](auto &tile, auto extent) {
        I32 t = thread_idx().x;
        tile[t] = x[Index(t)];
        barrier();
        x[Index(t)] = tile[extent - 1 - Index(t)];
      };
      if (kind == 0) {
        auto tile = dynamic_shared_array<float>();
        copy(tile, tile.size());
      } else if (kind == 1) {
        auto tile = shared_array<float>(256);
        copy(tile, Index(tile.size()));
      } else {
        auto tile = dynamic_shared_array<double>();
        copy(tile, tile.size());
      }
    });
  };
  for (ir::Target target : {ir::Target::CPU, ir::Target::GPU}) {
    const std::string dynamic = ir::canonical_text(lowered(reverse(0), target));
    EXPECT_EQ(dynamic, ir::canonical_text(lowered(reverse(0), target)));
    EXPECT_NE(dynamic.find("shared f32[dynamic]"), std::string::npos) << dynamic;
    EXPECT_NE(dynamic, ir::canonical_text(lowered(reverse(1), target)));
    EXPECT_NE(dynamic, ir::canonical_text(lowered(reverse(2), target)));
  }
  EXPECT_NE(cpu_object_key(lowered(reverse(0))).digest, cpu_object_key(lowered(reverse(1))).digest);
}

TEST(CacheKey, CpuKeyNamesTheToolchainTheHostAndTheOptions) {
  ir::LoweredKernel k = lowered(make_saxpy());
  CacheKey key = cpu_object_key(k);
  EXPECT_EQ("cpu-object", key.kind);
  EXPECT_EQ(64u, key.digest.size());
  EXPECT_EQ("cpu-object-" + key.digest, key.file_name());
  EXPECT_EQ(to_hex(content_hash(key.text)), key.digest);
  EXPECT_NE(std::string::npos, key.text.find("\nloom: ")) << key.text;
  EXPECT_NE(std::string::npos, key.text.find(" build " + loom_build_id() + "\n")) << key.text;
  EXPECT_GE(loom_build_id().size(), 32u) << "a GNU build ID (40 hex digits from ld)";
  EXPECT_NE(std::string::npos, key.text.find("llvm: " LLVM_VERSION_STRING "\n")) << key.text;
  EXPECT_NE(std::string::npos, key.text.find("host: " + codegen::host_cpu_identity())) << key.text;
  EXPECT_NE(std::string::npos, key.text.find(ir::canonical_text(k))) << key.text;
  ir::LoweredKernel fast = k;
  fast.fast_math = true;
  EXPECT_NE(key.digest, cpu_object_key(fast).digest) << "fast math";
}

TEST(CacheKey, GpuKeysNameTheTargetTheOptionsAndTheDevice) {
  ir::LoweredKernel k = lowered(make_saxpy(), ir::Target::GPU);
  codegen::GpuTarget target;
  target.sm = "sm_80";
  target.ptx_version = 78;
  CacheKey ptx = gpu_ptx_key(k, target);
  EXPECT_EQ("gpu-ptx", ptx.kind);
  EXPECT_NE(std::string::npos, ptx.text.find("target: sm_80 ptx 78\n")) << ptx.text;
  EXPECT_NE(std::string::npos, ptx.text.find("libdevice: ")) << ptx.text;

  codegen::GpuTarget other = target;
  other.sm = "sm_90";
  EXPECT_NE(ptx.digest, gpu_ptx_key(k, other).digest);
  other = target;
  other.ptx_version = 80;
  EXPECT_NE(ptx.digest, gpu_ptx_key(k, other).digest);
  ir::LoweredKernel fast = k;
  fast.fast_math = true;
  EXPECT_NE(ptx.digest, gpu_ptx_key(fast, target).digest);
  other = target;
  other.index32 = true;
  EXPECT_NE(ptx.digest, gpu_ptx_key(k, other).digest) << "32-bit index arithmetic";
  EXPECT_NE(std::string::npos, ptx.text.find("\nindex bits: 64\n")) << ptx.text;
  EXPECT_NE(ptx.digest, cpu_object_key(lowered(make_saxpy())).digest);

  runtime::DeviceInfo device;
  device.cc_major = 9, device.cc_minor = 0, device.driver_version = 12040;
  CacheKey cubin = gpu_cubin_key(ptx, device, "driver");
  EXPECT_EQ("gpu-cubin", cubin.kind);
  EXPECT_NE(std::string::npos, cubin.text.find(ptx.text));
  EXPECT_NE(std::string::npos, cubin.text.find("\nlinker: driver\n")) << cubin.text;
  runtime::DeviceInfo newer_driver = device;
  newer_driver.driver_version = 13000;
  EXPECT_NE(cubin.digest, gpu_cubin_key(ptx, newer_driver, "driver").digest);
  runtime::DeviceInfo other_device = device;
  other_device.cc_major = 8;
  EXPECT_NE(cubin.digest, gpu_cubin_key(ptx, other_device, "driver").digest);
  // nvJitLink's machine code is not the driver's, nor one nvJitLink release's another's.
  CacheKey nvjitlink = gpu_cubin_key(ptx, device, "nvJitLink 12.8 /cuda/libnvJitLink.so 7 1");
  EXPECT_NE(cubin.digest, nvjitlink.digest);
  EXPECT_NE(nvjitlink.digest,
            gpu_cubin_key(ptx, device, "nvJitLink 12.9 /cuda/libnvJitLink.so 7 1").digest);
}

TEST(CacheKey, LibdeviceIdentityFollowsTheFileUsed) {
  TempDir dir;
  codegen::GpuTarget target;
  target.libdevice_path = dir.path() + "/libdevice.10.bc";
  EXPECT_EQ("none", codegen::libdevice_identity(target));
  write_bytes(target.libdevice_path, "bitcode");
  std::string identity = codegen::libdevice_identity(target);
  EXPECT_EQ(0u, identity.find(target.libdevice_path + " 7 ")) << identity;
  write_bytes(target.libdevice_path, "other bitcode");
  EXPECT_NE(identity, codegen::libdevice_identity(target));
}

TEST(CacheEntry, RoundTripsAndRejectsDamage) {
  std::string entry = encode_cache_entry("the key", std::string("pay\0load", 8));
  EXPECT_EQ(cache_entry_header_size + 7 + 8, entry.size());
  std::string why;
  std::optional<std::string> payload = decode_cache_entry(entry, "the key", &why);
  ASSERT_TRUE(payload) << why;
  EXPECT_EQ(std::string("pay\0load", 8), *payload);

  EXPECT_FALSE(decode_cache_entry(entry, "the kez", &why));
  EXPECT_NE(std::string::npos, why.find("key differs")) << why;
  for (size_t cut = 0; cut < entry.size(); ++cut)
    EXPECT_FALSE(decode_cache_entry(entry.substr(0, cut), "the key")) << cut;
  EXPECT_FALSE(decode_cache_entry(entry + "x", "the key", &why)) << "trailing bytes";
  for (size_t at = 0; at < entry.size(); ++at) {
    std::string damaged = entry;
    damaged[at] ^= 0x01;
    EXPECT_FALSE(decode_cache_entry(damaged, "the key")) << "byte " << at;
  }
  std::string empty = encode_cache_entry("k", "");
  EXPECT_EQ("", decode_cache_entry(empty, "k").value_or("missing"));
}

} // namespace
