/* Replays saved fuzz inputs through a target: each argument is a file or a
 * directory of files. A crash or sanitizer report fails the test; the target
 * itself aborts on any outcome its contract forbids. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int replay_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "cannot open %s\n", path);
        return 1;
    }
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    rewind(f);
    uint8_t *buf = malloc(size > 0 ? (size_t)size : 1);
    if (!buf || fread(buf, 1, (size_t)size, f) != (size_t)size) {
        fprintf(stderr, "cannot read %s\n", path);
        fclose(f);
        free(buf);
        return 1;
    }
    fclose(f);
    LLVMFuzzerTestOneInput(buf, (size_t)size);
    free(buf);
    return 0;
}

int main(int argc, char **argv)
{
    int count = 0, errors = 0;
    for (int i = 1; i < argc; i++) {
        struct stat st;
        if (stat(argv[i], &st) != 0) {
            fprintf(stderr, "no such input: %s\n", argv[i]);
            return 1;
        }
        if (!S_ISDIR(st.st_mode)) {
            errors += replay_file(argv[i]);
            count++;
            continue;
        }
        DIR *dir = opendir(argv[i]);
        struct dirent *e;
        while (dir && (e = readdir(dir))) {
            if (e->d_name[0] == '.')
                continue;
            char path[4096];
            snprintf(path, sizeof path, "%s/%s", argv[i], e->d_name);
            errors += replay_file(path);
            count++;
        }
        if (dir)
            closedir(dir);
    }
    if (count == 0) {
        fprintf(stderr, "no inputs to replay\n");
        return 1;
    }
    printf("replayed %d inputs, %d unreadable\n", count, errors);
    return errors ? 1 : 0;
}
