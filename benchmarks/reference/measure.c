/* Runs a command and prints its CPU seconds and peak resident memory, as the kernel accounts
 * them (wait4): benchmarks/growth.py measures every row through it.
 *
 * Why not Python's own fork: a child forked from the benchmark's Python process keeps, in its
 * peak RSS, the pages it shared with that process before exec (the kernel records the old
 * memory's high-water mark at exec), so a small C solver would show Python's ~15 MB. Forked from
 * this small program, the floor is this program's size (about 1 MB).
 *
 * Build: gcc -O2 -o measure measure.c     Run: measure COMMAND [ARG...]
 * Prints, on stderr after the command's own output: MEASURE <user s> <system s> <peak KB> <exit>
 * Written for this benchmark.
 */
#include <stdio.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv) {
    if (argc < 2) { fprintf(stderr, "usage: measure COMMAND [ARG...]\n"); return 2; }
    pid_t pid = fork();
    if (pid < 0) { perror("fork"); return 2; }
    if (pid == 0) { execvp(argv[1], argv + 1); perror(argv[1]); _exit(127); }
    int status;
    struct rusage usage;
    if (wait4(pid, &status, 0, &usage) < 0) { perror("wait4"); return 2; }
    int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    fprintf(stderr, "MEASURE %ld.%06ld %ld.%06ld %ld %d\n",
            (long)usage.ru_utime.tv_sec, (long)usage.ru_utime.tv_usec,
            (long)usage.ru_stime.tv_sec, (long)usage.ru_stime.tv_usec, usage.ru_maxrss, code);
    return code;
}
