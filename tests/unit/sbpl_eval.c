/* The tests' own SBPL reader and last-match-wins evaluator (sbpl_eval.h). */
#define _GNU_SOURCE
#include "sbpl_eval.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef enum { NODE_LIST, NODE_SYMBOL, NODE_STRING } node_kind;

typedef struct node {
    node_kind kind;
    char *text; /* symbol or string */
    struct node **kids;
    size_t n;
} node;

typedef struct rule {
    bool allow;
    const node *form; /* (allow|deny OP... FILTER...) */
    size_t first_filter;
} rule;

struct sbpl_profile {
    node *top; /* a list of the profile's forms */
    rule *rules;
    size_t n_rules;
    char **keys, **values;
    size_t n_params;
    const char **command;
};

static void node_free(node *n) {
    if (!n) return;
    for (size_t i = 0; i < n->n; i++) node_free(n->kids[i]);
    free(n->kids);
    free(n->text);
    free(n);
}

static void say(char *err, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void say(char *err, size_t size, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, size, fmt, ap);
    va_end(ap);
}

/* ---- reading S-expressions ---- */

typedef struct reader {
    const char *p;
    char *err;
    size_t err_size;
} reader;

static void skip_space(reader *r) {
    for (;;) {
        while (*r->p == ' ' || *r->p == '\t' || *r->p == '\n' || *r->p == '\r') r->p++;
        if (*r->p != ';') return;
        while (*r->p && *r->p != '\n') r->p++;
    }
}

static node *new_node(node_kind kind) {
    node *n = calloc(1, sizeof *n);
    if (n) n->kind = kind;
    return n;
}

static bool add_kid(node *list, node *kid) {
    node **kids = realloc(list->kids, (list->n + 1) * sizeof *kids);
    if (!kids) return false;
    list->kids = kids;
    list->kids[list->n++] = kid;
    return true;
}

static node *read_form(reader *r);

/* Forms until CLOSE (')' or the end of the text, for the top level). */
static node *read_list(reader *r, char close) {
    node *list = new_node(NODE_LIST);
    for (;;) {
        skip_space(r);
        if (*r->p == close) {
            if (close) r->p++;
            return list;
        }
        if (!*r->p) {
            say(r->err, r->err_size, "unclosed list");
            break;
        }
        node *kid = read_form(r);
        if (!kid || !add_kid(list, kid)) {
            node_free(kid);
            break;
        }
    }
    node_free(list);
    return NULL;
}

static node *read_string(reader *r) {
    size_t len = 0;
    char *s = malloc(strlen(r->p) + 1);
    for (r->p++; s && *r->p && *r->p != '"'; r->p++) {
        if (*r->p == '\\' && r->p[1]) r->p++;
        s[len++] = *r->p;
    }
    node *n = s && *r->p == '"' ? new_node(NODE_STRING) : NULL;
    if (!n) {
        say(r->err, r->err_size, "unclosed string");
        free(s);
        return NULL;
    }
    r->p++;
    s[len] = '\0';
    n->text = s;
    return n;
}

static node *read_form(reader *r) {
    if (*r->p == '(') {
        r->p++;
        return read_list(r, ')');
    }
    if (*r->p == ')') {
        say(r->err, r->err_size, "unexpected ')'");
        return NULL;
    }
    if (*r->p == '"') return read_string(r);
    size_t len = strcspn(r->p, " \t\r\n();\"");
    node *n = new_node(NODE_SYMBOL);
    if (n && !(n->text = strndup(r->p, len))) {
        free(n);
        n = NULL;
    }
    r->p += len;
    return n;
}

/* ---- the profile ---- */

static bool is_symbol(const node *n, const char *text) {
    return n && n->kind == NODE_SYMBOL && strcmp(n->text, text) == 0;
}

/* Every form is (version 1), (allow ...) or (deny ...); operations are
 * symbols before the filters, which are lists. */
static bool read_rules(sbpl_profile *pr, char *err, size_t size) {
    bool version = false;
    pr->rules = calloc(pr->top->n + 1, sizeof *pr->rules);
    if (!pr->rules) return false;
    for (size_t i = 0; i < pr->top->n; i++) {
        const node *f = pr->top->kids[i];
        const node *head = f->kind == NODE_LIST && f->n ? f->kids[0] : NULL;
        if (is_symbol(head, "version")) {
            if (f->n != 2 || !is_symbol(f->kids[1], "1") || i != 0) {
                say(err, size, "(version 1) must come first, once");
                return false;
            }
            version = true;
            continue;
        }
        if (!is_symbol(head, "allow") && !is_symbol(head, "deny")) {
            say(err, size, "form %zu is neither allow nor deny", i);
            return false;
        }
        size_t k = 1;
        while (k < f->n && f->kids[k]->kind == NODE_SYMBOL) k++;
        if (k == 1) {
            say(err, size, "form %zu names no operation", i);
            return false;
        }
        for (size_t j = k; j < f->n; j++)
            if (f->kids[j]->kind != NODE_LIST) {
                say(err, size, "form %zu: an operation after a filter", i);
                return false;
            }
        pr->rules[pr->n_rules++] = (rule){is_symbol(head, "allow"), f, k};
    }
    if (!version) say(err, size, "no (version 1)");
    return version;
}

static bool read_argv(sbpl_profile *pr, const char *const *argv, char *err, size_t size) {
    if (!argv || !argv[0] || strcmp(argv[0], "/usr/bin/sandbox-exec") != 0 || !argv[1] ||
        strcmp(argv[1], "-p") != 0 || !argv[2]) {
        say(err, size, "not /usr/bin/sandbox-exec -p PROFILE");
        return false;
    }
    size_t i = 3, n = 0;
    while (argv[i] && strcmp(argv[i], "-D") == 0 && argv[i + 1]) i += 2, n++;
    pr->keys = calloc(n + 1, sizeof *pr->keys);
    pr->values = calloc(n + 1, sizeof *pr->values);
    if (!pr->keys || !pr->values) return false;
    for (i = 3; argv[i] && strcmp(argv[i], "-D") == 0 && argv[i + 1]; i += 2) {
        const char *kv = argv[i + 1], *eq = strchr(kv, '=');
        if (!eq) {
            say(err, size, "-D without KEY=VALUE");
            return false;
        }
        pr->keys[pr->n_params] = strndup(kv, (size_t)(eq - kv));
        pr->values[pr->n_params++] = strdup(eq + 1);
    }
    if (!argv[i] || strcmp(argv[i], "--") != 0 || !argv[i + 1]) {
        say(err, size, "no \"-- COMMAND\" after the parameters");
        return false;
    }
    pr->command = (const char **)&argv[i + 1];
    return true;
}

sbpl_profile *sbpl_load(const char *const *argv, char *err, size_t err_size) {
    sbpl_profile *pr = calloc(1, sizeof *pr);
    if (!pr) return NULL;
    if (!read_argv(pr, argv, err, err_size)) goto fail;
    reader r = {argv[2], err, err_size};
    if (!(pr->top = read_list(&r, '\0')) || !read_rules(pr, err, err_size)) goto fail;
    return pr;
fail:
    sbpl_free(pr);
    return NULL;
}

void sbpl_free(sbpl_profile *pr) {
    if (!pr) return;
    node_free(pr->top);
    free(pr->rules);
    for (size_t i = 0; i < pr->n_params; i++) {
        free(pr->keys[i]);
        free(pr->values[i]);
    }
    free(pr->keys);
    free(pr->values);
    free(pr);
}

const char *const *sbpl_command(const sbpl_profile *pr) { return pr->command; }

/* ---- deciding ---- */

static bool op_matches(const char *rule_op, const char *op) {
    if (strcmp(rule_op, "default") == 0) return true;
    size_t n = strlen(rule_op);
    if (n && rule_op[n - 1] == '*') return strncmp(op, rule_op, n - 1) == 0;
    return strcmp(rule_op, op) == 0;
}

/* The string a filter's argument stands for: a literal, or (param "KEY"). */
static const char *argument(const sbpl_profile *pr, const node *arg) {
    if (arg->kind == NODE_STRING) return arg->text;
    if (arg->kind != NODE_LIST || arg->n != 2 || !is_symbol(arg->kids[0], "param") ||
        arg->kids[1]->kind != NODE_STRING)
        return NULL;
    for (size_t i = 0; i < pr->n_params; i++)
        if (strcmp(pr->keys[i], arg->kids[1]->text) == 0) return pr->values[i];
    return NULL;
}

/* 1 when FILTER matches PATH, 0 when not, -1 when this reader cannot tell. */
static int filter_matches(const sbpl_profile *pr, const node *filter, const char *path) {
    const node *head = filter->n ? filter->kids[0] : NULL;
    bool any = is_symbol(head, "require-any"), all = is_symbol(head, "require-all");
    if (any || all) {
        for (size_t i = 1; i < filter->n; i++) {
            int m = filter_matches(pr, filter->kids[i], path);
            if (m < 0 || m == (any ? 1 : 0)) return m;
        }
        return all ? 1 : 0;
    }
    if (filter->n != 2) return -1;
    const char *arg = argument(pr, filter->kids[1]);
    if (!arg) return -1;
    if (is_symbol(head, "literal")) return strcmp(path, arg) == 0;
    if (is_symbol(head, "subpath")) {
        size_t n = strlen(arg);
        if (strcmp(arg, "/") == 0) return 1;
        return strncmp(path, arg, n) == 0 && (path[n] == '\0' || path[n] == '/');
    }
    return -1;
}

/* The path the kernel sees for PATH: macOS's /tmp, /var and /etc are
 * symlinks into /private. */
static void resolve(const char *path, char *out, size_t size) {
    static const char *const links[] = {"/tmp", "/var", "/etc", NULL};
    for (size_t i = 0; links[i]; i++) {
        size_t n = strlen(links[i]);
        if (strncmp(path, links[i], n) == 0 && (path[n] == '/' || path[n] == '\0')) {
            snprintf(out, size, "/private%s", path);
            return;
        }
    }
    snprintf(out, size, "%s", path);
}

int sbpl_allowed(const sbpl_profile *pr, const char *op, const char *path) {
    char real[8192];
    resolve(path, real, sizeof real);
    int decision = -1;
    for (size_t i = 0; i < pr->n_rules; i++) {
        const rule *r = &pr->rules[i];
        bool applies = false;
        for (size_t k = 1; k < r->first_filter; k++)
            applies |= op_matches(r->form->kids[k]->text, op);
        if (!applies) continue;
        int matches = r->first_filter == r->form->n; /* no filter: everything */
        for (size_t k = r->first_filter; k < r->form->n && matches != 1; k++) {
            int m = filter_matches(pr, r->form->kids[k], real);
            if (m < 0) return -1;
            matches = m;
        }
        if (matches) decision = r->allow;
    }
    return decision;
}
