/*
 * cuzk — common definitions shared by every layer: status codes, attributes.
 *
 * Every fallible public call returns cz_status and is marked CZ_WUR, so a
 * caller cannot silently drop an error. cz_status_str() gives a message a
 * user can act on; calls that know more (which file, which point, which
 * constraint) also fill a caller-supplied message buffer where they take one.
 */
#ifndef CUZK_COMMON_H
#define CUZK_COMMON_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__) || defined(__clang__)
#define CZ_WUR __attribute__((warn_unused_result))
#else
#define CZ_WUR
#endif

typedef enum {
    CZ_OK = 0,
    CZ_ERR_INVALID_ARG,        /* an argument violates the documented contract */
    CZ_ERR_NOMEM,              /* allocation failed */
    CZ_ERR_IO,                 /* read/write/open failed (errno is preserved) */
    CZ_ERR_FORMAT,             /* malformed file or message */
    CZ_ERR_TRUNCATED,          /* input shorter than its own header says */
    CZ_ERR_NOT_CANONICAL,      /* field element >= modulus */
    CZ_ERR_ENCODING_FLAGS,     /* point encoding flag bits are wrong */
    CZ_ERR_INFINITY_ENCODING,  /* infinity flag set but other bits nonzero */
    CZ_ERR_NOT_ON_CURVE,       /* decoded coordinates do not satisfy the curve equation */
    CZ_ERR_NOT_IN_SUBGROUP,    /* on the curve but not in the prime-order subgroup */
    CZ_ERR_NO_SQRT,            /* compressed x has no y on the curve */
    CZ_ERR_IDENTITY,           /* point at infinity where a non-identity point is required */
    CZ_ERR_UNSATISFIED,        /* witness does not satisfy the circuit */
    CZ_ERR_MISMATCH,           /* two inputs that must agree (counts, hashes) do not */
    CZ_ERR_UNSUPPORTED,        /* valid request this build cannot serve */
    CZ_ERR_CANCELLED,          /* the operation was cancelled */
    CZ_ERR_TIMEOUT,            /* a wait ran past its deadline */
    CZ_ERR_BUDGET,             /* request cannot fit the memory budget */
    CZ_ERR_NOT_FOUND,          /* unknown job, parameter set or key */
    CZ_ERR_BUSY,               /* resource in use */
    CZ_ERR_INTERNAL,           /* an invariant failed: a bug */
    CZ_ERR_QUEUE_FULL,         /* refused for now (a queue is full): retry later */
    /* A device (GPU) fault: a CUDA error, device out of memory, a wrong
     * result caught by a check. Says nothing about the input: the same
     * work may succeed on another device (the engine retries it there
     * once, see cuzk/engine.h). Never used for an unsatisfied witness. */
    CZ_ERR_DEVICE
} cz_status;

/* Static, human-readable description of a status code; never NULL. */
const char *cz_status_str(cz_status s);

/* Detail for an error: calls that can say more than the status (which
 * file, which section, which point, which constraint) take a nullable
 * cz_errbuf* and write a one-line message into it. */
typedef struct { char msg[320]; } cz_errbuf;

/* printf into err (if non-NULL); returns st, so `return cz_err(e, st, ...)`. */
cz_status cz_err(cz_errbuf *err, cz_status st, const char *fmt, ...)
#if defined(__GNUC__) || defined(__clang__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* The default parameter directory of `cuzk`, `cuzkd` and `cuzk bench`:
 * $CUZK_PARAM_DIR when set and not empty, else "cuzk-params" (relative to
 * the working directory: cuzkd logs the absolute path it resolves to, and
 * warns when it is relative, since a service's working directory is often
 * "/"). docs/parameters.md. */
const char *cz_default_param_dir(void);

#ifdef __cplusplus
}
#endif
#endif /* CUZK_COMMON_H */
