/* The `basalt` command: executes the CLI proper (basalt-cli beside this
 * program in a build tree, ../libexec/basalt/basalt-cli once installed)
 * with malloc's huge pages turned on.
 *
 * The CLI turns them on itself by executing itself again with a glibc
 * tunable set (src/core/huge_pages.c), which pays the dynamic loader twice:
 * the CLI loads 54 libraries, about 25 ms per start on these machines, 55 ms
 * of a `basalt --version`. This program loads only libc, so setting the
 * tunable here costs about 1 ms and the CLI starts once. Same pid and argv:
 * to a shell, the launcher and the CLI are one process. To run the CLI
 * under valgrind or a debugger, run basalt-cli. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "basalt/core.h"

static const char *const cli_paths[] = {"basalt-cli", "../libexec/basalt/basalt-cli"};

int main(int argc, char **argv)
{
    (void)argc;
    char self[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0) {
        fprintf(stderr, "basalt: cannot find its own program (/proc/self/exe): %s\n",
                strerror(errno));
        return 127;
    }
    self[n] = '\0';
    char *slash = strrchr(self, '/');
    size_t dir_len = slash != NULL ? (size_t)(slash - self) + 1 : 0;
    char path[PATH_MAX];
    for (size_t i = 0; i < sizeof cli_paths / sizeof cli_paths[0]; i++) {
        int len = snprintf(path, sizeof path, "%.*s%s", (int)dir_len, self, cli_paths[i]);
        if (len > 0 && (size_t)len < sizeof path && access(path, X_OK) == 0) {
            basalt_exec_path_with_huge_pages(path, argv);
            fprintf(stderr, "basalt: cannot start %s: %s\n", path, strerror(errno));
            return 127;
        }
    }
    fprintf(stderr, "basalt: the CLI program is not installed beside %s (looked for %.*s%s and "
            "%.*s%s)\n", self, (int)dir_len, self, cli_paths[0], (int)dir_len, self, cli_paths[1]);
    return 127;
}
