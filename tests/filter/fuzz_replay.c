/* fuzz_replay.c — runs the fuzz target over files (a seed corpus, crash reproducers) without
 * libFuzzer, so every build (gcc, ASan+UBSan, TSan) replays them as a regression test. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static size_t n_inputs;

static int
replay_file(const char *path)
{
    FILE *fp = fopen(path, "rb");
    if (!fp) {
        perror(path);
        return -1;
    }
    fseek(fp, 0, SEEK_END);
    long len = ftell(fp);
    fseek(fp, 0, SEEK_SET);
    uint8_t *buf = malloc(len > 0 ? (size_t)len : 1);
    if (!buf || (len > 0 && fread(buf, 1, (size_t)len, fp) != (size_t)len)) {
        fprintf(stderr, "%s: cannot read\n", path);
        fclose(fp);
        free(buf);
        return -1;
    }
    fclose(fp);
    LLVMFuzzerTestOneInput(buf, (size_t)len);
    free(buf);
    n_inputs++;
    return 0;
}

static int
replay(const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        perror(path);
        return -1;
    }
    if (!S_ISDIR(st.st_mode))
        return replay_file(path);
    DIR *d = opendir(path);
    if (!d) {
        perror(path);
        return -1;
    }
    int            rc = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        char child[4096];
        snprintf(child, sizeof(child), "%s/%s", path, e->d_name);
        if (replay(child) != 0)
            rc = -1;
    }
    closedir(d);
    return rc;
}

int
main(int argc, char **argv)
{
    int rc = 0;
    for (int i = 1; i < argc; i++)
        if (replay(argv[i]) != 0)
            rc = 1;
    if (n_inputs == 0) {
        fprintf(stderr, "no inputs replayed\n");
        return 1;
    }
    printf("replayed %zu inputs\n", n_inputs);
    return rc;
}
