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

#endif
