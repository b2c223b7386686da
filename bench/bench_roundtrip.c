/*
 * bench_roundtrip.c — parse and emit many files in one process.
 *
 * Reads file paths, one per line, from standard input; round-trips each with
 * c2t_roundtrip; prints "files N bytes B seconds S peak_rss_kib K". File
 * reading is timed too, as on the CPython side of the benchmark.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "cutile2triton.h"

static double now_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static char *read_whole(const char *path, size_t *length) {
  FILE *file = fopen(path, "rb");
  if (!file)
    return NULL;
  fseek(file, 0, SEEK_END);
  long size = ftell(file);
  fseek(file, 0, SEEK_SET);
  char *data = malloc(size > 0 ? (size_t)size : 1);
  *length = data ? fread(data, 1, (size_t)(size > 0 ? size : 0), file) : 0;
  fclose(file);
  return data;
}

int main(void) {
  char path[4096];
  long files = 0, failures = 0;
  size_t bytes = 0;
  double start = now_seconds();
  while (fgets(path, sizeof path, stdin)) {
    path[strcspn(path, "\n")] = '\0';
    size_t length = 0;
    char *source = read_whole(path, &length);
    if (!source)
      continue;
    c2t_result result;
    if (c2t_roundtrip(path, source, length, &result) != C2T_OK)
      failures++;
    c2t_result_free(&result);
    free(source);
    files++;
    bytes += length;
  }
  double seconds = now_seconds() - start;
  struct rusage usage;
  getrusage(RUSAGE_SELF, &usage);
  printf("files %ld failures %ld bytes %zu seconds %.4f peak_rss_kib %ld\n", files, failures, bytes, seconds,
         usage.ru_maxrss);
  return 0;
}
