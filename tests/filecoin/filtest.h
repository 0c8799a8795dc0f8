/*
 * Helpers shared by the Filecoin tests: hex fields and JSON files of the
 * known-answer vectors (tests/vectors/filecoin/).
 */
#ifndef CZ_FILTEST_H
#define CZ_FILTEST_H

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "testutil.h"

/* n bytes from exactly 2n hex digits (the test fails otherwise). */
static inline void fil_unhex(uint8_t *out, const char *hex, size_t n)
{
    assert_non_null(hex);
    assert_int_equal(strlen(hex), 2 * n);
    for (size_t i = 0; i < n; i++) {
        unsigned v;
        assert_int_equal(sscanf(hex + 2 * i, "%2x", &v), 1);
        out[i] = (uint8_t)v;
    }
}

/* A vector file as JSON (the test fails, naming the error, otherwise). */
static inline json_t *fil_load_json(const char *rel)
{
    json_error_t e;
    json_t *j = json_load_file(cz_vector_path(rel), 0, &e);
    if (!j)
        fail_msg("%s: %s (line %d)", rel, e.text, e.line);
    return j;
}

/* An integer field of a JSON object (the test fails if it is not one). */
static inline uint64_t fil_jint(json_t *o, const char *k)
{
    json_t *v = json_object_get(o, k);
    assert_true(json_is_integer(v));
    return (uint64_t)json_integer_value(v);
}

/* circuits.json's "counts" entry of one circuit id (the test fails if
 * there is none). */
static inline json_t *fil_counts_of(json_t *circuits, const char *circuit)
{
    json_t *a = json_object_get(circuits, "counts");
    for (size_t i = 0; i < json_array_size(a); i++) {
        json_t *c = json_array_get(a, i);
        if (!strcmp(json_string_value(json_object_get(c, "circuit")), circuit))
            return c;
    }
    fail_msg("circuits.json has no %s", circuit);
    return NULL;
}

#endif
