/*
 * Read bandwidth of this machine, the floor of an exact vector scan: a scan must read every
 * vector once, so it cannot take less than (bytes of the vectors) / (read bandwidth).
 *
 * Method (the "read" kernel of McCalpin's STREAM family and of lmbench's bw_mem rd): sum a buffer
 * of the given size with as many independent 256-bit accumulators as the core can keep busy, so
 * that the loop is limited by loads, not by the additions; the best of several passes is
 * reported, after one pass that faults the pages in. The sum is printed so that the compiler
 * cannot drop the loop. One thread, like the scan it bounds.
 *
 * Usage: memory-read-bandwidth <bytes> [passes]
 * Output (one line of JSON): {"bytes": ..., "passes": ..., "bestSeconds": ..., "bytesPerSecond": ..., "checksum": ...}
 *
 * Built by bench/index-speed.ts with `gcc -O3 -march=native`.
 */
#include <immintrin.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_seconds(void) {
  struct timespec spec;
  clock_gettime(CLOCK_MONOTONIC, &spec);
  return (double)spec.tv_sec + (double)spec.tv_nsec * 1e-9;
}

/* Sums `count` floats (a multiple of 64) with eight 8-float accumulators. */
static float read_all(const float *data, size_t count) {
  __m256 a0 = _mm256_setzero_ps(), a1 = a0, a2 = a0, a3 = a0, a4 = a0, a5 = a0, a6 = a0, a7 = a0;
  for (size_t i = 0; i < count; i += 64) {
    a0 = _mm256_add_ps(a0, _mm256_load_ps(data + i));
    a1 = _mm256_add_ps(a1, _mm256_load_ps(data + i + 8));
    a2 = _mm256_add_ps(a2, _mm256_load_ps(data + i + 16));
    a3 = _mm256_add_ps(a3, _mm256_load_ps(data + i + 24));
    a4 = _mm256_add_ps(a4, _mm256_load_ps(data + i + 32));
    a5 = _mm256_add_ps(a5, _mm256_load_ps(data + i + 40));
    a6 = _mm256_add_ps(a6, _mm256_load_ps(data + i + 48));
    a7 = _mm256_add_ps(a7, _mm256_load_ps(data + i + 56));
  }
  __m256 sum = _mm256_add_ps(_mm256_add_ps(_mm256_add_ps(a0, a1), _mm256_add_ps(a2, a3)),
                             _mm256_add_ps(_mm256_add_ps(a4, a5), _mm256_add_ps(a6, a7)));
  float lanes[8];
  _mm256_storeu_ps(lanes, sum);
  return lanes[0] + lanes[1] + lanes[2] + lanes[3] + lanes[4] + lanes[5] + lanes[6] + lanes[7];
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s <bytes> [passes]\n", argv[0]);
    return 2;
  }
  size_t bytes = (size_t)strtoull(argv[1], NULL, 10);
  int passes = argc > 2 ? atoi(argv[2]) : 10;
  size_t count = bytes / sizeof(float) / 64 * 64;
  if (count == 0 || passes < 1) {
    fprintf(stderr, "need at least 256 bytes and one pass\n");
    return 2;
  }
  float *data = aligned_alloc(64, count * sizeof(float));
  if (data == NULL) {
    fprintf(stderr, "cannot allocate %zu bytes\n", count * sizeof(float));
    return 1;
  }
  for (size_t i = 0; i < count; i++) data[i] = (float)(i & 1023) * 1e-3f;
  float checksum = read_all(data, count);
  double best = 1e30;
  for (int pass = 0; pass < passes; pass++) {
    double started = now_seconds();
    checksum += read_all(data, count);
    double elapsed = now_seconds() - started;
    if (elapsed < best) best = elapsed;
  }
  size_t read = count * sizeof(float);
  printf("{\"bytes\": %zu, \"passes\": %d, \"bestSeconds\": %.9f, \"bytesPerSecond\": %.0f, \"checksum\": %.3f}\n", read, passes, best,
         (double)read / best, (double)checksum);
  free(data);
  return 0;
}
