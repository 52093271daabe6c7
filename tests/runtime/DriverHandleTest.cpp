// DriverHandle (runtime/DriverHandle.h), the owner of Stream's and Event's driver objects: each
// object made is freed exactly once, by whichever handle owns it last, on the device it was made
// on.
#include "runtime/DriverHandle.h"

#include <gtest/gtest.h>

#include <stdexcept>

using namespace loom::runtime;

namespace {

struct Counted {
  using Handle = int *;
  static inline int made = 0, freed = 0, next = 0, last_device = -1;
  static inline bool fail = false;
  static int *create(int device) {
    if (fail)
      throw std::runtime_error("cuCountedCreate failed");
    ++made;
    last_device = device;
    return new int(++next);
  }
  static void destroy(int *handle, int device) noexcept {
    ++freed;
    last_device = device;
    delete handle;
  }
};

TEST(runtime_driver_handle, EachObjectIsFreedOnceByItsLastOwner) {
  Counted::made = Counted::freed = 0;
  {
    DriverHandle<Counted> a;
    ASSERT_NE(nullptr, a.get());
    int first = *a.get();
    DriverHandle<Counted> b = std::move(a);
    EXPECT_EQ(nullptr, a.get());
    EXPECT_EQ(first, *b.get());
    DriverHandle<Counted> c;
    c = std::move(b); // frees c's own object
    EXPECT_EQ(1, Counted::freed);
    EXPECT_EQ(first, *c.get());
    c = std::move(c);
    EXPECT_EQ(first, *c.get()) << "moved onto itself, it keeps its object";
  }
  EXPECT_EQ(2, Counted::made);
  EXPECT_EQ(2, Counted::freed);
}

TEST(runtime_driver_handle, AnObjectIsFreedOnTheDeviceItWasMadeOn) {
  Counted::made = Counted::freed = 0;
  {
    DriverHandle<Counted> on_three(3);
    EXPECT_EQ(3, Counted::last_device);
    EXPECT_EQ(3, on_three.device());
    DriverHandle<Counted> on_one(1);
    EXPECT_EQ(1, Counted::last_device);
    on_one = std::move(on_three); // frees the object of device 1, then holds device 3's
    EXPECT_EQ(1, Counted::last_device);
    EXPECT_EQ(3, on_one.device());
  }
  EXPECT_EQ(3, Counted::last_device);
  EXPECT_EQ(2, Counted::freed);
}

TEST(runtime_driver_handle, AFailedCreateThrowsAndOwnsNothing) {
  Counted::made = Counted::freed = 0;
  Counted::fail = true;
  EXPECT_THROW(DriverHandle<Counted>(), std::runtime_error);
  Counted::fail = false;
  EXPECT_EQ(0, Counted::freed);
}

} // namespace
