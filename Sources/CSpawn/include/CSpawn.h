#ifndef HEARTH_CSPAWN_H
#define HEARTH_CSPAWN_H

#include <sys/types.h>

/// Creates a pipe whose two descriptors are close-on-exec from the start (pipe2 with
/// O_CLOEXEC), so no other child started at the same time inherits them. 0 or an errno.
int hearth_pipe_cloexec(int fds[2]);

/// posix_spawn of `path` with `argv`/`envp` in `directory`: stdin/stdout/stderr from
/// `child_fds` and no other descriptor, its own process group, an empty signal mask and
/// SIGPIPE, SIGTERM, SIGINT, SIGHUP, SIGQUIT and SIGCHLD at their defaults. 0 (and `*pid`) or an errno.
int hearth_spawn(pid_t *pid, const char *path, char *const argv[], char *const envp[], const char *directory, const int child_fds[3]);

#endif
