#!/usr/bin/env bash
# The embedded DSL's compile-time errors (loom::Philox, loom::local_array, loom::print,
# loom::check, loom::dynamic_shared_array, loom::mma_sync): each case of dsl_compile_errors.cpp must fail to
# compile with the message given here (case 0 must compile), against the staged header tree.
# Usage: dsl_compile_errors.sh SOURCE STAGED_INCLUDE_DIR CXX
set -uo pipefail
source=$1
include=$2
cxx=${3:-c++}
cases=(
  "0|"
  "1|the seed of loom::Philox must be an integer"
  "2|the seed of loom::Philox must be an integer"
  "3|the seed of loom::Philox must be an integer"
  "4|the stream of loom::Philox must be an integer"
  "5|the first block of loom::Philox must be an integer"
  "6|loom::Philox takes 2 or 3 arguments: (seed, stream) or (seed, stream, block)"
  "7|loom::Philox takes 2 or 3 arguments: (seed, stream) or (seed, stream, block)"
  "8|uniform_f16"
  "9|the bounds of loom::Philox::randint must be integers"
  "10|uniform"
  "11|deleted"
  "12|randint"
  "13|local arrays do not hold complex numbers"
  "14|local arrays do not hold 16-bit floats"
  "15|loom::print takes text and scalar values"
  "16|local_array"
  "17|loom::check takes a condition"
  "18|loom::check takes a condition"
  "19|loom::check takes a condition"
  "20|shared arrays do not hold complex numbers"
  "21|shared arrays do not hold 16-bit floats"
  "22|mma_sync multiplies shared arrays of loom::f16 or of loom::bf16"
)
failed=0
for entry in "${cases[@]}"; do
  n=${entry%%|*}
  want=${entry#*|}
  out=$("$cxx" -std=c++20 -fsyntax-only -DCASE="$n" -I"$include" -x c++ "$source" 2>&1)
  rc=$?
  if [[ -z $want ]]; then
    if ((rc != 0)); then
      echo "case $n: expected to compile, but:" && echo "$out" | head -20
      failed=1
    else
      echo "case $n: compiles"
    fi
  elif ((rc == 0)); then
    echo "case $n: compiled, but should fail with: $want"
    failed=1
  elif ! grep -qF -- "$want" <<<"$out"; then
    echo "case $n: failed without the message '$want':" && echo "$out" | grep -m5 error
    failed=1
  else
    echo "case $n: $(grep -m1 -F -- "$want" <<<"$out" | sed 's/^.*error: //')"
  fi
done
exit $failed
