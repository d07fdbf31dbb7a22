/* index_diff_compare.c — `index_diff compare STOCK TURBO`: reads two transcripts of the same query
 * run (stock HDF5's and h5turbo's) in step, and names the first difference by the step it falls in:
 * "scenario S, query N (what was asked): stock "...", h5turbo "..."". Exit 0 when identical. Where
 * stock's HDF5 failed on its metadata cache defect (IXD_DEFECT_LINE), the transcripts are compared
 * up to that step. */
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

/* A transcript's lines, read whole. */
typedef struct {
    char  **line;
    size_t  n;
} lines_t;

static int
read_lines(const char *path, lines_t *t)
{
    FILE *fp = fopen(path, "r");
    if (!fp) {
        perror(path);
        return -1;
    }
    char   *l   = NULL;
    size_t  cap = 0, alloc = 0;
    ssize_t n;
    t->line = NULL;
    t->n    = 0;
    while ((n = getline(&l, &cap, fp)) >= 0) {
        if (n > 0 && l[n - 1] == '\n')
            l[--n] = '\0';
        if (t->n == alloc) {
            alloc   = alloc ? 2 * alloc : 4096;
            t->line = realloc(t->line, alloc * sizeof(*t->line));
            if (!t->line)
                abort();
        }
        t->line[t->n++] = strdup(l);
    }
    free(l);
    fclose(fp);
    return 0;
}

int
ixd_compare(const char *stock, const char *turbo)
{
    lines_t a, b;
    if (read_lines(stock, &a) < 0 || read_lines(turbo, &b) < 0)
        return 2;
    /* Stock's HDF5 failed on its cache defect (index_diff.h): what it did from that step on is
     * compared no further (the defect's call left objects HDF5 cannot close, and a run whose calls
     * succeeded there draws other random steps after it). */
    for (size_t k = 0; k < a.n; k++)
        if (strcmp(a.line[k], IXD_DEFECT_LINE) == 0) {
            while (k > 0 && strncmp(a.line[k], "## ", 3) != 0)
                k--;
            a.n = k;
            b.n = b.n < k ? b.n : k;
            break;
        }
    const char *head = NULL;
    int         ret  = 0;
    size_t      i = 0, j = 0;
    for (;;) {
        if (i == a.n && j == b.n)
            break;
        const char *la = i < a.n ? a.line[i] : NULL, *lb = j < b.n ? b.line[j] : NULL;
        if (la && lb && strcmp(la, lb) == 0) {
            if (strncmp(la, "## ", 3) == 0)
                head = la;
            i++, j++;
            continue;
        }
        size_t at = 0;
        while (la && lb && la[at] && la[at] == lb[at])
            at++;
        size_t from = at > BEFORE ? at - BEFORE : 0;
        name_step(head ? head : "");
        printf(": ");
        show("stock", la, from);
        printf(", ");
        show("h5turbo", lb, from);
        printf(" (transcript line %zu)\n", i + 1);
        ret = 1;
        break;
    }
    for (size_t k = 0; k < a.n; k++)
        free(a.line[k]);
    for (size_t k = 0; k < b.n; k++)
        free(b.line[k]);
    free(a.line);
    free(b.line);
    return ret;
}
