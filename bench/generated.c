/* The C project bench-project builds, generated: N - 1 units that each do
 * the work of a real file, main.c, their header, the Makefile and the
 * policy. Apart from project.c, which times the builds. */
#include "generated.h"

#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

/* ---- The project. ---- */

/* DIR/NAME written by FORMAT; false when it could not be. */
__attribute__((format(printf, 3, 4))) static bool write_file(const char *dir, const char *name,
                                                             const char *format, ...);

static bool write_file(const char *dir, const char *name, const char *format, ...) {
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    if (!f) return false;
    va_list ap;
    va_start(ap, format);
    bool ok = vfprintf(f, format, ap) >= 0;
    va_end(ap);
    return fclose(f) == 0 && ok;
}

/* One unit: a few functions that use what each of the four system headers
 * declares, so that cc1 has the work of a real file, not only the headers'. */
static bool write_unit(const char *dir, int i) {
    char name[32];
    snprintf(name, sizeof name, "u%03d.c", i);
    return write_file(
        dir, name,
        "/* Unit %d of the generated project. */\n"
        "#include <math.h>\n#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\n\n"
        "#include \"project.h\"\n\n"
        "struct item {\n    char name[32];\n    double weight;\n    int rank;\n};\n\n"
        "static int by_weight(const void *a, const void *b) {\n"
        "    const struct item *x = a, *y = b;\n"
        "    return (x->weight > y->weight) - (x->weight < y->weight);\n}\n\n"
        "static double spread(const struct item *items, int n) {\n"
        "    double mean = 0, var = 0;\n"
        "    for (int i = 0; i < n; i++) mean += items[i].weight / n;\n"
        "    for (int i = 0; i < n; i++) var += pow(items[i].weight - mean, 2) / n;\n"
        "    return sqrt(var);\n}\n\n"
        "double unit_%d(int n) {\n"
        "    struct item *items = calloc((size_t)n, sizeof *items);\n"
        "    if (!items) return -1;\n"
        "    for (int i = 0; i < n; i++) {\n"
        "        snprintf(items[i].name, sizeof items[i].name, \"item-%d-%%d\", i);\n"
        "        items[i].weight = sqrt((double)(i * %d + 1)) * sin((double)i);\n"
        "        items[i].rank = (int)strlen(items[i].name);\n"
        "    }\n"
        "    qsort(items, (size_t)n, sizeof *items, by_weight);\n"
        "    double sum = spread(items, n);\n"
        "    for (int i = 0; i < n; i++)\n"
        "        if (strncmp(items[i].name, \"item-\", 5) == 0) sum += items[i].weight * "
        "items[i].rank;\n"
        "    free(items);\n"
        "    return sum;\n}\n",
        i, i, i, i + 1);
}

/* UNITS C files and main.c, project.h, the Makefile and the policy, in DIR. */
bool write_project(const char *dir, int units) {
    size_t size = (size_t)units * 48 + 256;
    char *decls = malloc(size), *calls = malloc(size), *objs = malloc(size);
    bool ok = decls && calls && objs;
    size_t d = 0, c = 0, o = 0;
    for (int i = 0; ok && i < units; i++) {
        d += (size_t)snprintf(decls + d, size - d, "double unit_%d(int n);\n", i);
        c += (size_t)snprintf(calls + c, size - c, "    sum += unit_%d(100);\n", i);
        o += (size_t)snprintf(objs + o, size - o, " u%03d.o", i);
    }
    ok = ok &&
         write_file(dir, "project.h", "#ifndef PROJECT_H\n#define PROJECT_H\n%s#endif\n", decls);
    ok = ok && write_file(dir, "main.c",
                          "#include <stdio.h>\n\n#include \"project.h\"\n\n"
                          "int main(void) {\n    double sum = 0;\n%s"
                          "    printf(\"%%g\\n\", sum);\n    return 0;\n}\n",
                          calls);
    /* Each object by a pattern rule that names the header: make's usual
     * shape. The link is one more step, at the end, as in any project. */
    ok = ok && write_file(dir, "Makefile",
                          "CC = cc\nCFLAGS = -O2 -Wall\nOBJS = main.o%s\n\n"
                          "app: $(OBJS)\n\t$(CC) -o $@ $(OBJS) -lm\n\n"
                          "%%.o: %%.c project.h\n\t$(CC) $(CFLAGS) -c -o $@ $<\n\n"
                          "clean:\n\trm -f app $(OBJS)\n\n.PHONY: clean\n",
                          objs);
    /* What the build runs, by name: make runs sh for each recipe line, sh
     * runs cc, and gcc's closure brings cc1, collect2, as and ld. The
     * project (the working directory) is the one tree written. */
    ok = ok && write_file(dir, "p.lua",
                          "local lcsb = require \"lcsb\"\n"
                          "return lcsb.exec_policy { exec = { \"make\", \"sh\", \"cc\", "
                          "\"gcc\", \"as\", \"ld\" } }\n");
    for (int i = 0; ok && i < units; i++) ok = write_unit(dir, i);
    free(decls);
    free(calls);
    free(objs);
    return ok;
}
