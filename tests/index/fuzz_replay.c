/* fuzz_replay.c — runs a fuzz target (the sidecar decoder's or the pack scanner's, whichever it is
 * linked with) over every file of a directory (the seed corpus and any crash reproducers) without
 * libFuzzer, so every build, sanitizers included, replays them. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s CORPUS_DIR\n", argv[0]);
        return 2;
    }
    DIR *dir = opendir(argv[1]);
    if (!dir) {
        perror(argv[1]);
        return 1;
    }
    size_t         n = 0;
    struct dirent *e;
    while ((e = readdir(dir))) {
        if (e->d_name[0] == '.')
            continue;
        char path[4096];
        snprintf(path, sizeof(path), "%s/%s", argv[1], e->d_name);
        FILE *fp = fopen(path, "rb");
        if (!fp)
            continue;
        fseek(fp, 0, SEEK_END);
        long len = ftell(fp);
        fseek(fp, 0, SEEK_SET);
        uint8_t *buf = malloc(len > 0 ? (size_t)len : 1);
        size_t   got = buf && len > 0 ? fread(buf, 1, (size_t)len, fp) : 0;
        fclose(fp);
        LLVMFuzzerTestOneInput(buf, got);
        free(buf);
        n++;
    }
    closedir(dir);
    if (n == 0) {
        fprintf(stderr, "no inputs in %s\n", argv[1]);
        return 1;
    }
    printf("ok: %zu inputs replayed\n", n);
    return 0;
}
