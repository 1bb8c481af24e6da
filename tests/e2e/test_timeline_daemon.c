/*
 * End to end: czkd writes its timeline (<data_dir>/timeline.jsonl, rotated by size) while
 * proving circom jobs on the CPU; `czk timeline` draws it from the file and from the live
 * daemon; every metric docker/grafana-czk.json queries is in a live /metrics scrape.
 * The checks are in tests/e2e/timeline_daemon.py (python3's json and xml.etree read what
 * czkd and czk wrote); this wrapper runs it, or skips (77) without python3.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

int main(void)
{
    if (system("python3 -c 'import xml.etree.ElementTree, urllib.request' 2>/dev/null") != 0) {
        printf("SKIP: python3 is not installed\n");
        return 77;
    }
    if (access(CZK_BINARY_DIR "/bin/czkd", X_OK) != 0 || access(CZK_BINARY_DIR "/bin/czk", X_OK) != 0) {
        printf("SKIP: czkd and czk are not built in %s/bin\n", CZK_BINARY_DIR);
        return 77;
    }
    char *const argv[] = {
        "python3", CZK_SOURCE_DIR "/tests/e2e/timeline_daemon.py", CZK_BINARY_DIR "/bin/czkd",
        CZK_BINARY_DIR "/bin/czk", CZK_SOURCE_DIR, CZK_BINARY_DIR "/timeline_daemon", NULL,
    };
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        execvp("python3", argv);
        perror("python3");
        _exit(127);
    }
    int status = 0;
    if (pid < 0 || waitpid(pid, &status, 0) < 0) return 1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
