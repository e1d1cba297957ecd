// Integer division where LLVM IR leaves the result open, in the forms the
// first rewrite missed (adversarial retest, 2026-11-27): a 2-vector
// division with a zero lane, and constant divisors in clang's -O0 code
// (`optnone`, so the host back end divides INT_MIN by a constant -1 and
// traps). A GPU traps on none of them: here x/0 is -1, x%0 is x,
// INT_MIN / -1 is INT_MIN and INT_MIN % -1 is 0. Compiled with -O0.
#include "kperf_cuda.h"
typedef int v2i __attribute__((ext_vector_type(2)));
extern "C" __global__ void divs(const int *x, int *o) {
  int t = threadIdx.x;
  v2i n = {x[4*t], x[4*t+1]}, d = {x[4*t+2], x[4*t+3]};
  v2i q = n / d, r = n % d;
  o[6*t] = q.x; o[6*t+1] = q.y; o[6*t+2] = r.x; o[6*t+3] = r.y;
  o[6*t+4] = x[4*t] / -1;
  o[6*t+5] = x[4*t] % -1;
}
