/* A main for the fuzz targets without libFuzzer: runs LLVMFuzzerTestOneInput once on each file
 * named (a folder: on each file in it but FILE.expect), as libFuzzer does with files. The normal build replays
 * tests/fuzz/regressions/<target>/ this way (ctest -L fuzz), without the fuzzer runtime. */
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

/* The targets describe each input's outcome through this hook (weak in them, so libFuzzer
 * builds print nothing): the error dspc reported, or what it accepted. A regression test
 * matches it (tests/fuzz/CMakeLists.txt: regressions/<target>/FILE.expect). */
void dspc_fuzz_report(const char* outcome);
void dspc_fuzz_report(const char* outcome) {
  fprintf(stderr, "outcome: %s\n", outcome);
}

static int runs;

static void run_file(const char* path) {
  FILE* f = fopen(path, "rb");
  if (!f) {
    fprintf(stderr, "replay: cannot open %s\n", path);
    exit(1);
  }
  size_t cap = 4096, n = 0;
  uint8_t* buf = (uint8_t*)malloc(cap);
  size_t got;
  while ((got = fread(buf + n, 1, cap - n, f)) > 0) {
    n += got;
    if (n == cap) buf = (uint8_t*)realloc(buf, cap *= 2);
  }
  fclose(f);
  fprintf(stderr, "replay: %s (%zu bytes)\n", path, n);
  /* An exact-size copy, so that a read past the end is caught where a sanitizer runs. */
  uint8_t* exact = (uint8_t*)malloc(n ? n : 1);
  memcpy(exact, buf, n);
  free(buf);
  LLVMFuzzerTestOneInput(exact, n);
  free(exact);
  runs++;
}

static int by_name(const void* a, const void* b) {
  return strcmp(*(char* const*)a, *(char* const*)b);
}

static void run_path(const char* path) {
  struct stat st;
  if (stat(path, &st) != 0) {
    fprintf(stderr, "replay: no such file or folder: %s\n", path);
    exit(1);
  }
  if (!S_ISDIR(st.st_mode)) {
    run_file(path);
    return;
  }
  DIR* d = opendir(path);
  struct dirent* e;
  char** names = 0;
  size_t count = 0;
  if (!d) {
    fprintf(stderr, "replay: cannot open the folder %s\n", path);
    exit(1);
  }
  /* A folder that cannot be read must not look like one without inputs (a 32-bit readdir
   * without _FILE_OFFSET_BITS=64 fails with EOVERFLOW on ext4). */
  while ((errno = 0, e = readdir(d))) {
    size_t name_len = strlen(e->d_name);
    if (e->d_name[0] == '.' || (name_len > 7 && strcmp(e->d_name + name_len - 7, ".expect") == 0))
      continue; /* hidden files, and the regression tests' expected outcomes */
    names = (char**)realloc(names, (count + 1) * sizeof *names);
    size_t len = strlen(path) + strlen(e->d_name) + 2;
    names[count] = (char*)malloc(len);
    snprintf(names[count++], len, "%s/%s", path, e->d_name);
  }
  if (errno) {
    fprintf(stderr, "replay: cannot read the folder %s: %s\n", path, strerror(errno));
    exit(1);
  }
  closedir(d);
  qsort(names, count, sizeof *names, by_name);
  for (size_t i = 0; i < count; i++) {
    run_path(names[i]);
    free(names[i]);
  }
  free(names);
}

int main(int argc, char** argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s FILE_OR_FOLDER...\n", argv[0]);
    return 2;
  }
  for (int i = 1; i < argc; i++) run_path(argv[i]);
  fprintf(stderr, "replay: %d inputs, no finding\n", runs);
  return 0;
}
