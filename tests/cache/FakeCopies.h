// One copy between host and device memory as loom's fake driver (FakeCudaDriver.cpp) records it,
// and loom_fake_cuda_copies() hands it to a test: plain data, shared by the fake and the tests.
#pragma once

#include <cstddef>

// How many copies the fake keeps between clears (it counts the rest).
constexpr size_t loom_fake_max_copies = 4096;

struct LoomFakeCopy {
  bool to_device;                // host to device (cuMemcpyHtoD*), else device to host
  unsigned long long device;     // the device address copied to or from
  unsigned long long allocation; // the start of the device allocation holding it (0: none)
  size_t allocation_bytes;       // that allocation's size
  const void *host;              // the host address copied from or to
  size_t bytes;
};
