#!/usr/bin/env bash
# Under AddressSanitizer the product kernels (core/rlcore/nn/products) run
# uninstrumented and check their operands' extents on entry instead: a call
# with any operand one element short must stop with ASan's report, and one
# with every operand whole must run.  The dense layers' products on the
# kernel (40 rows) and on OpenBLAS (8 rows, B transposed) in every
# orientation the layers use; the LSTM's packed products; the convolution's
# in-place patches, forward and weight gradient.  (TAP)
# Usage: kernel_extents.sh KERNEL_OVERRUN
set -u
prog=$1
n=0 failed=0
ok() { n=$((n + 1)); if [ "$1" = 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; failed=1; fi; }
case_of() { # WHAT ARGS...: runs; a short operand must end in ASan's report
  local what=$1; shift
  local out rc
  out=$("$prog" "$@" 2>&1)
  rc=$?
  if [ "$2" = none ]; then
    ok $rc "$what: every operand whole, runs"
  else
    [ $rc != 0 ] && grep -q 'ERROR: AddressSanitizer' <<<"$out"
    ok $? "$what: $2 $([ "$2" = far ] && echo "(a patch offset past its sample)" || echo short), ASan's report (exit $rc)"
  fi
}
for shape in "0 1 40" "0 0 40" "1 0 40" "0 1 8"; do
  for op in none a b c bias y db; do case_of "fused, trans_a/trans_b/rows $shape" fused $op $shape; done
done
for op in none a bp c b packed; do case_of "gemm_small and its pack" gemm $op; done
if "$prog" conv none | grep -q 'no kernel'; then
  echo "ok $((n += 1)) - # SKIP conv in-place patches: this CPU has no AVX2 + FMA, so no such kernel"
else
  for op in none x wt bias y koff far dw_x dyt dw moff; do case_of "conv in-place patches" conv $op; done
fi
echo "1..$n"
exit $failed
