#!/usr/bin/env bash
# loom as another project uses it: installed into a scratch prefix, as the Debian package, and
# through FetchContent, each time building examples/external (a CMake project of its own, copied
# away from loom's tree) and running it against a double-precision reference. Also checks what
# the install holds (headers, SONAME, CMake package, loom.pc; no tests, no LLVM headers) and that
# find_package(loom 9) fails with CMake's version message. Usage: check.sh [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/../.."
source=$PWD
build=$(cd "${1:-build}" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
version=$(sed -n 's/^project(loom VERSION \([0-9.]*\) .*/\1/p' CMakeLists.txt)
minor=${version%.*}
fail() {
  echo "package check: FAIL: $*" >&2
  exit 1
}
cp -r examples/external "$work/src"

# Builds and runs the example against `prefix` (CMAKE_PREFIX_PATH), or with extra cmake options.
build_example() {
  local name=$1
  shift
  cmake -S "$work/src" -B "$work/$name" -G Ninja -DCMAKE_EXPORT_COMPILE_COMMANDS=ON "$@" \
    >"$work/$name.log" 2>&1 ||
    { cat "$work/$name.log"; fail "$name: configuring the example"; }
  ninja -C "$work/$name" >>"$work/$name.log" 2>&1 ||
    { cat "$work/$name.log"; fail "$name: building the example"; }
  # The example's compile sees the install's headers only: not loom's sources, not LLVM's.
  local commands=$work/$name/compile_commands.json
  if [[ $name != fetchcontent ]]; then
    grep -q -- "-I$source\b\|-isystem $source\b" "$commands" && fail "$name: the example saw loom's source tree"
    grep -q -- "llvm" "$commands" && fail "$name: the example's compile names LLVM"
  fi
  "$work/$name/external" || fail "$name: the example's run"
  echo "package check: $name: PASS"
}

# 1. cmake --install into a prefix.
prefix=$work/prefix
cmake --install "$build" --prefix "$prefix" >/dev/null
for d in tests bench examples libexec; do
  [[ -e $prefix/$d ]] && fail "the install holds $d/ (it belongs to the gpu-tree component)"
done
for f in include/loom/loom.hpp include/loom/Version.hpp include/loom/ir/IR.h lib/cmake/loom/loomConfig.cmake \
  lib/cmake/loom/loomConfigVersion.cmake lib/cmake/loom/loomTargets.cmake lib/pkgconfig/loom.pc \
  bin/dsl-to-ptx bin/loom-run share/loom/docs/language.md share/loom/examples/external/main.cpp \
  "lib/libloom.so.$version" "lib/libloom.so.$minor" lib/libloom.so; do
  [[ -e $prefix/$f ]] || fail "the install has no $f"
done
find "$prefix/include" -name '*.h*' | xargs grep -l '#include [<"]llvm' && fail "an installed header includes LLVM"
readelf -d "$prefix/lib/libloom.so.$version" | grep -q "SONAME.*\[libloom.so.$minor\]" ||
  fail "libloom's SONAME is not libloom.so.$minor"
[[ $("$prefix/bin/dsl-to-ptx" --version) == "dsl-to-ptx (loom) $version" ]] || fail "dsl-to-ptx --version"
[[ $(PKG_CONFIG_PATH=$prefix/lib/pkgconfig pkg-config --modversion loom) == "$version" ]] ||
  fail "loom.pc's version"
build_example prefix -DCMAKE_PREFIX_PATH="$prefix"

# find_package with a version the install is not: CMake's own message.
mkdir -p "$work/nine"
printf 'cmake_minimum_required(VERSION 3.25)\nproject(nine LANGUAGES CXX)\nfind_package(loom 9 REQUIRED)\n' \
  >"$work/nine/CMakeLists.txt"
if cmake -S "$work/nine" -B "$work/nine/build" -DCMAKE_PREFIX_PATH="$prefix" >"$work/nine.log" 2>&1; then
  fail "find_package(loom 9) succeeded"
fi
grep -q "version: $version" "$work/nine.log" || { cat "$work/nine.log"; fail "find_package(loom 9)'s message"; }
echo "package check: find_package(loom 9) fails, naming version $version: PASS"

# 2. The Debian package, unpacked into a scratch root.
(cd "$build" && cpack -G DEB >"$work/cpack.log" 2>&1) || { cat "$work/cpack.log"; fail "cpack -G DEB"; }
deb=$(ls "$build"/libloom-dev_"$version"_*.deb)
dpkg-deb --contents "$deb" >"$work/contents"
grep -q "usr/include/loom/loom.hpp" "$work/contents" || fail "the .deb has no headers"
grep -q "usr/lib/.*libloom.so.$minor" "$work/contents" || fail "the .deb has no libloom.so.$minor"
grep -q "usr/tests\|/loom_gpu_bench\|libexec" "$work/contents" && fail "the .deb holds tests or benchmarks"
depends=$(dpkg-deb -f "$deb" Depends)
[[ $depends == *libgomp1* && $depends == *libc6* ]] || fail "the .deb's Depends ($depends)"
dpkg-deb -x "$deb" "$work/root"
build_example deb -DCMAKE_PREFIX_PATH="$work/root/usr"
echo "package check: $(basename "$deb") (Depends: $depends): PASS"

# 3. FetchContent from this checkout (LLVM's shared library: links fast), library and tools only.
build_example fetchcontent -DLOOM_SOURCE_DIR="$source" -DLOOM_STATIC_LLVM=OFF
[[ -e $work/fetchcontent/_deps/loom-build/tests || -e $work/fetchcontent/_deps/loom-build/bench ]] &&
  fail "FetchContent built loom's tests or benchmarks"
echo "package check: all PASS"
