/* Layer 1, pure: a public struct described once, as a table of its fields,
 * so that its JSON, its Lua table and any lookup by name come from the same
 * description and cannot drift apart. */
#ifndef LCSB_FIELDS_H
#define LCSB_FIELDS_H

#include "util.h"

typedef enum lcsb__field_kind {
    LCSB__FIELD_WORD, /* an enum, said as NAMES[value] ("" is never said) */
    LCSB__FIELD_TEXT, /* a char array */
    LCSB__FIELD_INT,  /* an int */
    LCSB__FIELD_BOOL, /* a bool */
    LCSB__FIELD_BITS, /* unsigned bits, said as the list of NAMES[bit] */
} lcsb__field_kind;

typedef struct lcsb__field {
    const char *key; /* NULL ends a table */
    lcsb__field_kind kind;
    size_t offset;
    const char *const *names; /* WORD and BITS: NULL-terminated */
    /* The field is left out where this says so (NULL: never). */
    bool (*omit)(const void *object);
} lcsb__field;

/* The field KEY of FIELDS, or NULL. */
const lcsb__field *lcsb__field_find(const lcsb__field *fields, const char *key);
bool lcsb__field_omitted(const lcsb__field *f, const void *object);
/* A WORD field's name for its value ("" for a value without one). */
const char *lcsb__field_word(const lcsb__field *f, const void *object);
const char *lcsb__field_text(const lcsb__field *f, const void *object);
int lcsb__field_int(const lcsb__field *f, const void *object);
bool lcsb__field_bool(const lcsb__field *f, const void *object);
unsigned lcsb__field_bits(const lcsb__field *f, const void *object);
/* OBJECT's fields as the keys of a JSON object, in the table's order, into
 * B: "KEY":VALUE,... without braces, so that a writer can add keys of its
 * own after them and close the object once. Nothing when every field is
 * left out. */
void lcsb__fields_add_keys(lcsb__buf *b, const lcsb__field *fields, const void *object);
/* OBJECT as a JSON object of its fields alone; NULL on ENOMEM. */
char *lcsb__fields_json(const lcsb__field *fields, const void *object);

#endif
