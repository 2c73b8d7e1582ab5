/* Runs the fuzz target's function over files, outside libFuzzer: the regression inputs and
 * the seed corpus in the ordinary (and the sanitizer) test build. Arguments are files or
 * folders of files; a crash or a sanitizer report fails the run. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int run_file(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "cannot read %s\n", path);
        return 1;
    }
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *data = malloc(size > 0 ? (size_t)size : 1);
    size_t got = data ? fread(data, 1, (size_t)size, f) : 0;
    fclose(f);
    if (!data || got != (size_t)size) {
        free(data);
        fprintf(stderr, "cannot read %s\n", path);
        return 1;
    }
    LLVMFuzzerTestOneInput(data, got);
    free(data);
    printf("%s: no crash\n", path);
    return 0;
}

int main(int argc, char **argv) {
    int failed = 0, files = 0;
    LLVMFuzzerInitialize(&argc, &argv);
    for (int a = 1; a < argc; a++) {
        struct stat st;
        if (stat(argv[a], &st) == 0 && S_ISDIR(st.st_mode)) {
            struct dirent **names;
            int n = scandir(argv[a], &names, NULL, alphasort); /* a fixed order */
            for (int k = 0; k < n; k++) {
                if (names[k]->d_name[0] != '.') {
                    char path[4096];
                    snprintf(path, sizeof path, "%s/%s", argv[a], names[k]->d_name);
                    failed += run_file(path);
                    files++;
                }
                free(names[k]);
            }
            free(n > 0 ? names : NULL);
        } else {
            failed += run_file(argv[a]);
            files++;
        }
    }
    printf("%d files, %d unreadable\n", files, failed);
    return failed ? 1 : 0;
}
