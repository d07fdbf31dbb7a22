/* index_diff_compare.c — `index_diff compare STOCK TURBO`: reads two transcripts of the same query
 * run (stock HDF5's and h5turbo's) in step, and names the first difference by the step it falls in:
 * "scenario S, query N (what was asked): stock "...", h5turbo "..."". Exit 0 when identical. */
#include "index_diff.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

/* Around the first difference: this many bytes before it, and at most this many in all. */
#define BEFORE 40
#define SHOWN  160

/* One side of a difference, from byte `from` of line s (NULL: the transcript ended). */
static void
show(const char *who, const char *s, size_t from)
{
    if (!s) {
        printf("%s: (end of transcript)", who);
        return;
    }
    size_t n = strlen(s);
    if (from > n)
        from = n;
    printf("%s \"%s%.*s%s\"", who, from ? "..." : "", SHOWN, s + from, n - from > SHOWN ? "..." : "");
}

/* "## SCENARIO | LABEL | WHAT" as "scenario SCENARIO, LABEL (WHAT)". */
static void
name_step(const char *head)
{
    const char *s = head + 3, *a = strstr(s, " | "), *b = a ? strstr(a + 3, " | ") : NULL;
    if (!a || !b) {
        printf("before the first step");
        return;
    }
    printf("scenario %.*s, %.*s (%s)", (int)(a - s), s, (int)(b - a - 3), a + 3, b + 3);
}

static ssize_t
read_line(FILE *fp, char **line, size_t *cap)
{
    ssize_t n = getline(line, cap, fp);
    if (n > 0 && (*line)[n - 1] == '\n')
        (*line)[--n] = '\0';
    return n;
}

int
ixd_compare(const char *stock, const char *turbo)
{
    FILE *a = fopen(stock, "r"), *b = fopen(turbo, "r");
    if (!a || !b) {
        perror(!a ? stock : turbo);
        return 2;
    }
    char  *la = NULL, *lb = NULL, *head = NULL;
    size_t ca = 0, cb = 0;
    int    ret = 0;
    for (long line = 1;; line++) {
        ssize_t na = read_line(a, &la, &ca), nb = read_line(b, &lb, &cb);
        if (na < 0 && nb < 0)
            break;
        if (na >= 0 && nb >= 0 && strcmp(la, lb) == 0) {
            if (strncmp(la, "## ", 3) == 0) {
                free(head);
                head = strdup(la);
            }
            continue;
        }
        size_t i = 0;
        while (na >= 0 && nb >= 0 && la[i] && la[i] == lb[i])
            i++;
        size_t from = i > BEFORE ? i - BEFORE : 0;
        name_step(head ? head : "");
        printf(": ");
        show("stock", na >= 0 ? la : NULL, from);
        printf(", ");
        show("h5turbo", nb >= 0 ? lb : NULL, from);
        printf(" (transcript line %ld)\n", line);
        ret = 1;
        break;
    }
    free(la);
    free(lb);
    free(head);
    fclose(a);
    fclose(b);
    return ret;
}
