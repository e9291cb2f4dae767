/* Fields: a struct read through its table, and written as JSON. Pure. */
#include "fields.h"

#include "json.h"

#include <string.h>

static const void *at(const lcsb__field *f, const void *object) {
    return (const char *)object + f->offset;
}

const lcsb__field *lcsb__field_find(const lcsb__field *fields, const char *key) {
    for (; key && fields->key; fields++)
        if (strcmp(fields->key, key) == 0) return fields;
    return NULL;
}

bool lcsb__field_omitted(const lcsb__field *f, const void *object) {
    return f->omit && f->omit(object);
}

const char *lcsb__field_word(const lcsb__field *f, const void *object) {
    /* An enum is stored as an int: its values here are small and positive. */
    int value = *(const int *)at(f, object);
    for (int i = 0; f->names[i]; i++)
        if (i == value) return f->names[i];
    return "";
}

const char *lcsb__field_text(const lcsb__field *f, const void *object) { return at(f, object); }
int lcsb__field_int(const lcsb__field *f, const void *object) {
    return *(const int *)at(f, object);
}
bool lcsb__field_bool(const lcsb__field *f, const void *object) {
    return *(const bool *)at(f, object);
}
unsigned lcsb__field_bits(const lcsb__field *f, const void *object) {
    return *(const unsigned *)at(f, object);
}

static void add_value(lcsb__buf *b, const lcsb__field *f, const void *object) {
    switch (f->kind) {
    case LCSB__FIELD_WORD: lcsb__buf_add_json_string(b, lcsb__field_word(f, object)); return;
    case LCSB__FIELD_TEXT: lcsb__buf_add_json_string(b, lcsb__field_text(f, object)); return;
    case LCSB__FIELD_INT: lcsb__buf_addf(b, "%d", lcsb__field_int(f, object)); return;
    case LCSB__FIELD_BOOL:
        lcsb__buf_adds(b, lcsb__field_bool(f, object) ? "true" : "false");
        return;
    case LCSB__FIELD_BITS: {
        unsigned bits = lcsb__field_bits(f, object);
        bool first = true;
        lcsb__buf_adds(b, "[");
        for (unsigned i = 0; f->names[i]; i++) {
            if (!(bits & (1u << i))) continue;
            if (!first) lcsb__buf_adds(b, ",");
            lcsb__buf_add_json_string(b, f->names[i]);
            first = false;
        }
        lcsb__buf_adds(b, "]");
        return;
    }
    }
}

void lcsb__fields_add_keys(lcsb__buf *b, const lcsb__field *fields, const void *object) {
    bool first = true;
    for (const lcsb__field *f = fields; f->key; f++) {
        if (lcsb__field_omitted(f, object)) continue;
        lcsb__buf_addf(b, "%s\"%s\":", first ? "" : ",", f->key);
        add_value(b, f, object);
        first = false;
    }
}

char *lcsb__fields_json(const lcsb__field *fields, const void *object) {
    lcsb__buf b = {0};
    lcsb__buf_adds(&b, "{");
    lcsb__fields_add_keys(&b, fields, object);
    lcsb__buf_adds(&b, "}");
    if (b.oom) {
        lcsb__buf_free(&b);
        return NULL;
    }
    return b.p;
}
