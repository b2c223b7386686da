/*
 * io.c — reading inputs and writing outputs for the command-line tool.
 *
 * Reading stops at the library's input limit (C2T_MAX_INPUT_BYTES): a
 * larger file, /dev/zero or an endless standard input is reported after
 * at most that many bytes, as the library reports a file over the limit.
 *
 * Writing OUT goes through a temporary file that only this process could
 * have created: `.OUT.c2t-XXXXXXXXXXXX.tmp` in OUT's folder, opened with
 * O_CREAT|O_EXCL|O_NOFOLLOW (a name that exists, a planted symbolic link
 * included, is never opened: another name is drawn), written, given the
 * mode of the file it replaces, synced and renamed over OUT. So OUT is the
 * whole old file or the whole new one, also with several writers at once.
 * The temporary file is removed on every error and when SIGINT, SIGTERM,
 * SIGHUP or SIGXFSZ arrives while it exists; the handlers are installed only
 * while a temporary file exists, then the previous dispositions come back
 * (the signal is re-raised under them). c2t_main also runs inside Python
 * (python -m cutile2triton), so nothing is left behind in the process.
 */
#ifndef _XOPEN_SOURCE
#define _XOPEN_SOURCE 700 /* realpath */
#endif
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "cutile2triton.h"

#define CLI_READ_CHUNK (1u << 16)  /* bytes asked of read() at a time */
#define CLI_MAX_TEMP_TRIES 100     /* temporary names drawn before giving up */
#define CLI_MAX_PENDING_TEMPS 16   /* temporary files of concurrent c2t_main calls (threads) */

/* ------------------------------------------------------------- reading */

/* The library's limit report (diag_limit) before the library sees the input.
 * `size_text` NULL: a stream, whose size is not known (only that it is larger). */
static void cli_limit_error(const char *name, const char *size_text) {
  if (size_text)
    fprintf(stderr, "%s:1:1: error: C2T002: too many bytes in one input: %s (limit is %u)\n    \n    ^\n", name,
            size_text, (unsigned)C2T_MAX_INPUT_BYTES);
  else
    fprintf(stderr, "%s:1:1: error: C2T002: too many bytes in one input (limit is %u)\n    \n    ^\n", name,
            (unsigned)C2T_MAX_INPUT_BYTES);
}

char *cli_read_file(const char *path, const char *name, size_t *length, int *status) {
  bool from_stdin = strcmp(path, "-") == 0;
  int fd = from_stdin ? STDIN_FILENO : open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
  *status = C2T_ERROR_USAGE;
  if (fd < 0) {
    fprintf(stderr, "cutile2triton: cannot open %s: %s\n", path, strerror(errno));
    return NULL;
  }
  struct stat st;
  if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
    fprintf(stderr, "cutile2triton: cannot read %s: %s\n", path, strerror(EISDIR));
    if (!from_stdin)
      close(fd);
    return NULL;
  }
  if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && (uintmax_t)st.st_size > C2T_MAX_INPUT_BYTES) {
    char size_text[32];
    snprintf(size_text, sizeof size_text, "%jd", (intmax_t)st.st_size);
    cli_limit_error(name, size_text); /* the same words as the library's */
    if (!from_stdin)
      close(fd);
    *status = C2T_ERROR_LIMIT;
    return NULL;
  }
  size_t capacity = CLI_READ_CHUNK, used = 0;
  char *data = malloc(capacity);
  bool failed = data == NULL, over = false;
  while (!failed) {
    if (used == capacity) {
      if (used > C2T_MAX_INPUT_BYTES) {
        over = true; /* one byte past the limit is enough to know */
        break;
      }
      size_t bigger_capacity = capacity * 2 > (size_t)C2T_MAX_INPUT_BYTES + 1 ? (size_t)C2T_MAX_INPUT_BYTES + 1
                                                                               : capacity * 2;
      char *bigger = realloc(data, bigger_capacity);
      if (!bigger) {
        failed = true;
        break;
      }
      data = bigger;
      capacity = bigger_capacity;
    }
    ssize_t got = read(fd, data + used, capacity - used);
    if (got < 0 && errno == EINTR)
      continue;
    if (got < 0) {
      fprintf(stderr, "cutile2triton: cannot read %s: %s\n", path, strerror(errno));
      free(data);
      data = NULL;
      break;
    }
    if (got == 0)
      break;
    used += (size_t)got;
  }
  if (!from_stdin)
    close(fd);
  if (failed) {
    fprintf(stderr, "cutile2triton: cannot read %s: out of memory\n", path);
    free(data);
    return NULL;
  }
  if (!data)
    return NULL;
  if (over) {
    cli_limit_error(name, NULL);
    free(data);
    *status = C2T_ERROR_LIMIT;
    return NULL;
  }
  *length = used;
  *status = C2T_OK;
  return data;
}

/* ------------------------------------------- signals while writing */

static const int guarded_signals[] = {SIGINT, SIGTERM, SIGHUP, SIGXFSZ};
#define GUARDED_COUNT ((int)(sizeof guarded_signals / sizeof guarded_signals[0]))

/* Process-wide by nature (a signal handler can reach nothing else); set
 * only while some call has a temporary file, and cleared after. */
static pthread_mutex_t guard_lock = PTHREAD_MUTEX_INITIALIZER;
static int guard_users;
static bool guard_installed[GUARDED_COUNT];
static struct sigaction guard_previous[GUARDED_COUNT];
static char *volatile guard_paths[CLI_MAX_PENDING_TEMPS];
static bool guard_taken[CLI_MAX_PENDING_TEMPS]; /* slots handed out (under guard_lock) */
static volatile sig_atomic_t guard_caught;

static void guard_handler(int sig) {
  int saved_errno = errno;
  for (int i = 0; i < CLI_MAX_PENDING_TEMPS; i++) {
    char *path = guard_paths[i];
    if (path)
      unlink(path); /* async-signal-safe */
  }
  guard_caught = sig;
  for (int i = 0; i < GUARDED_COUNT; i++)
    if (guarded_signals[i] == sig)
      sigaction(sig, &guard_previous[i], NULL);
  raise(sig); /* delivered under the previous disposition when this returns */
  errno = saved_errno;
}

static void guard_block(sigset_t *old) {
  sigset_t set;
  sigemptyset(&set);
  for (int i = 0; i < GUARDED_COUNT; i++)
    sigaddset(&set, guarded_signals[i]);
  pthread_sigmask(SIG_BLOCK, &set, old);
}

/* Install the handlers (first user) and take a slot; -1 when all are taken. */
static int guard_enter(void) {
  pthread_mutex_lock(&guard_lock);
  int slot = -1;
  for (int i = 0; i < CLI_MAX_PENDING_TEMPS && slot < 0; i++)
    if (!guard_taken[i])
      slot = i;
  if (slot >= 0)
    guard_taken[slot] = true;
  if (slot >= 0 && guard_users++ == 0) {
    guard_caught = 0;
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = guard_handler;
    sigemptyset(&action.sa_mask);
    for (int i = 0; i < GUARDED_COUNT; i++) {
      guard_installed[i] = false;
      struct sigaction previous;
      if (sigaction(guarded_signals[i], NULL, &previous) != 0 || previous.sa_handler == SIG_IGN)
        continue; /* an ignored signal stays ignored */
      guard_previous[i] = previous;
      guard_installed[i] = sigaction(guarded_signals[i], &action, NULL) == 0;
    }
  }
  pthread_mutex_unlock(&guard_lock);
  return slot;
}

/* Give the slot back; the last user restores the previous dispositions. */
static void guard_leave(int slot) {
  pthread_mutex_lock(&guard_lock);
  guard_paths[slot] = NULL;
  guard_taken[slot] = false;
  if (--guard_users == 0) {
    for (int i = 0; i < GUARDED_COUNT; i++)
      if (guard_installed[i]) {
        struct sigaction current;
        /* the handler may have restored it already (then it is the previous one) */
        if (sigaction(guarded_signals[i], NULL, &current) == 0 && current.sa_handler == guard_handler)
          sigaction(guarded_signals[i], &guard_previous[i], NULL);
        guard_installed[i] = false;
      }
  }
  pthread_mutex_unlock(&guard_lock);
}

/* ------------------------------------------------------------- writing */

static uint64_t mix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15u;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9u;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebu;
  return x ^ (x >> 31);
}

static int write_all(int fd, const char *data, size_t length) {
  while (length > 0) {
    ssize_t put = write(fd, data, length);
    if (put < 0 && errno == EINTR)
      continue;
    if (put <= 0)
      return -1;
    data += put;
    length -= (size_t)put;
  }
  return 0;
}

/* Write into an existing file that is not a regular file (/dev/null, a FIFO,
 * /dev/stdout): there is nothing to replace. */
static int write_in_place(const char *shown, const char *path, const char *data, size_t length) {
  int fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC | O_NOCTTY);
  if (fd < 0 || write_all(fd, data, length) != 0) {
    fprintf(stderr, "cutile2triton: cannot write %s: %s\n", shown, strerror(errno));
    if (fd >= 0)
      close(fd);
    return C2T_ERROR_USAGE;
  }
  if (close(fd) != 0) {
    fprintf(stderr, "cutile2triton: cannot write %s: %s\n", shown, strerror(errno));
    return C2T_ERROR_USAGE;
  }
  return C2T_OK;
}

int cli_write_file(const char *path, const char *data, size_t length) {
  if (strcmp(path, "-") == 0) {
    if (fwrite(data, 1, length, stdout) != length || fflush(stdout) != 0) {
      fprintf(stderr, "cutile2triton: cannot write output: %s\n", strerror(errno));
      return C2T_ERROR_USAGE;
    }
    return C2T_OK;
  }
  /* A symbolic link: the file it points to is written, the link stays. */
  struct stat st;
  char *resolved = NULL;
  const char *final = path;
  if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode)) {
    resolved = realpath(path, NULL);
    if (!resolved) {
      fprintf(stderr, "cutile2triton: cannot write %s: it is a symbolic link to a missing file (%s)\n", path,
              strerror(errno));
      return C2T_ERROR_USAGE;
    }
    final = resolved;
  }
  bool replacing = false;
  mode_t mode = 0;
  int status = C2T_ERROR_USAGE;
  char *temporary = NULL;
  if (stat(final, &st) == 0) {
    if (S_ISDIR(st.st_mode)) {
      fprintf(stderr, "cutile2triton: cannot write %s: it is a folder\n", path);
      goto done;
    }
    if (!S_ISREG(st.st_mode)) {
      status = write_in_place(path, final, data, length);
      goto done;
    }
    if ((st.st_mode & 0222) == 0 || access(final, W_OK) != 0) {
      fprintf(stderr, "cutile2triton: cannot write %s: the file is read-only (mode %04o); it was left as it is\n",
              path, (unsigned)(st.st_mode & 07777));
      goto done;
    }
    replacing = true;
    mode = st.st_mode & 07777;
  }
  /* the folder of `final`, and the temporary name in it */
  const char *slash = strrchr(final, '/');
  size_t folder_length = slash ? (size_t)(slash - final) + 1 : 0;
  const char *base = final + folder_length;
  char folder[PATH_MAX];
  if (folder_length >= sizeof folder) {
    fprintf(stderr, "cutile2triton: cannot write %s: the path is too long\n", path);
    goto done;
  }
  if (folder_length)
    memcpy(folder, final, folder_length);
  else
    folder[folder_length++] = '.';
  folder[folder_length] = '\0';
  if (access(folder, W_OK | X_OK) != 0) {
    fprintf(stderr, "cutile2triton: cannot write %s: the folder %s is not writable (%s)\n", path, folder,
            strerror(errno));
    goto done;
  }
  size_t temporary_size = strlen(final) + 40;
  temporary = malloc(temporary_size);
  if (!temporary) {
    fprintf(stderr, "cutile2triton: cannot write %s: out of memory\n", path);
    goto done;
  }
  struct timespec now;
  clock_gettime(CLOCK_REALTIME, &now);
  uint64_t seed = mix64((uint64_t)now.tv_sec * 1000000007u ^ (uint64_t)now.tv_nsec) ^
                  mix64((uint64_t)getpid() << 20 ^ (uint64_t)(uintptr_t)&now);
  int slot = guard_enter();
  if (slot < 0) {
    fprintf(stderr, "cutile2triton: cannot write %s: too many outputs written at once (limit is %d)\n", path,
            CLI_MAX_PENDING_TEMPS);
    goto done;
  }
  int fd = -1, open_errno = EEXIST;
  sigset_t old_mask;
  for (int attempt = 0; attempt < CLI_MAX_TEMP_TRIES && fd < 0; attempt++) {
    uint64_t draw = mix64(seed + (uint64_t)attempt);
    snprintf(temporary, temporary_size, "%.*s.%s.c2t-%012llx.tmp", (int)(base - final), final, base,
             (unsigned long long)(draw & 0xffffffffffffu));
    guard_block(&old_mask); /* the name is registered exactly when the file is ours */
    fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY, 0666);
    open_errno = errno;
    if (fd >= 0)
      guard_paths[slot] = temporary;
    pthread_sigmask(SIG_SETMASK, &old_mask, NULL);
    if (fd < 0 && open_errno != EEXIST) {
      fprintf(stderr, "cutile2triton: cannot write %s: cannot create a file in %s: %s\n", path, folder,
              strerror(open_errno));
      break;
    }
  }
  if (fd < 0) {
    if (open_errno == EEXIST)
      fprintf(stderr, "cutile2triton: cannot write %s: no free temporary name in %s after %d tries\n", path, folder,
              CLI_MAX_TEMP_TRIES);
    guard_leave(slot);
    goto done;
  }
  const char *failed = NULL;
  int failed_errno = 0;
  if (write_all(fd, data, length) != 0)
    failed = "write", failed_errno = errno;
  else if (replacing && fchmod(fd, mode) != 0)
    failed = "keep the mode of", failed_errno = errno;
  else if (fsync(fd) != 0)
    failed = "write", failed_errno = errno;
  if (close(fd) != 0 && !failed)
    failed = "write", failed_errno = errno;
  guard_block(&old_mask);
  if (!failed && guard_caught)
    failed = "write", failed_errno = EINTR; /* the handler removed the file (a Python handler runs on) */
  if (!failed && rename(temporary, final) != 0)
    failed = "write", failed_errno = errno;
  if (failed)
    unlink(temporary);
  guard_paths[slot] = NULL;
  pthread_sigmask(SIG_SETMASK, &old_mask, NULL);
  guard_leave(slot);
  if (failed)
    fprintf(stderr, "cutile2triton: cannot %s %s: %s; it was left as it was\n", failed, path, strerror(failed_errno));
  else
    status = C2T_OK;
done:
  free(temporary);
  free(resolved);
  return status;
}
