/* `rlhost bench`: measured speed, on/off side by side in one run. */
#ifndef RLHOST_BENCH_H
#define RLHOST_BENCH_H

/* rlhost bench nn [--json] [--repeat K]: sgemm vs full MLP update
   throughput, and the small-batch inference split. */
int rl__bench_nn(int json, int repeat);

#endif
