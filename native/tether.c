/*
 * tether: runs a command tool so that it cannot outlive the logbook process
 * that started it.
 *
 *   tether COMMAND [ARG...]
 *
 * logbook starts tether in a process group of its own; tether starts the
 * command in that group and waits for it. When logbook dies by any means
 * (SIGKILL included), the kernel sends tether SIGTERM (PR_SET_PDEATHSIG), and
 * tether kills its whole group: the command and everything it started. So a
 * resume can never run a tool while a copy started by a dead process still runs.
 *
 * The command's exit status is tether's; a command killed by a signal kills
 * tether with the same signal. When the command cannot be started at all,
 * tether writes "exec:<errno>" to descriptor 3 (when that is open) and exits 127,
 * so logbook tells "not found" from a command that exited 127 itself.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

/* The parent is gone: take the whole group down, tether included. */
static void on_parent_death(int sig) {
  (void)sig;
  kill(0, SIGKILL);
  _exit(137);
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: tether COMMAND [ARG...]\n");
    return 2;
  }
  pid_t parent = getppid();
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_parent_death;
  sigaction(SIGTERM, &sa, NULL);
  prctl(PR_SET_PDEATHSIG, SIGTERM);
  if (getppid() != parent) on_parent_death(SIGTERM); /* it died before the request took hold */

  /* Descriptor 3 reports a failed exec and is closed in the command either way. */
  int report = fcntl(3, F_GETFD) == -1 ? -1 : 3;
  if (report != -1) fcntl(report, F_SETFD, FD_CLOEXEC);

  pid_t child = fork();
  if (child < 0) {
    fprintf(stderr, "tether: cannot fork: %s\n", strerror(errno));
    return 126;
  }
  if (child == 0) {
    struct sigaction dfl;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    sigaction(SIGTERM, &dfl, NULL);
    prctl(PR_SET_PDEATHSIG, 0);
    execvp(argv[1], argv + 1);
    int err = errno;
    if (report != -1) dprintf(report, "exec:%d", err);
    _exit(127);
  }
  if (report != -1) close(report);

  int status = 0;
  while (waitpid(child, &status, 0) < 0) {
    if (errno != EINTR) return 126;
  }
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) {
    int sig = WTERMSIG(status);
    signal(sig, SIG_DFL);
    kill(getpid(), sig);
    return 128 + sig;
  }
  return 126;
}
