#include "cuzk/common.h"
#include <stdarg.h>
#include <stdio.h>

const char *cz_status_str(cz_status s)
{
    switch (s) {
    case CZ_OK: return "ok";
    case CZ_ERR_INVALID_ARG: return "invalid argument";
    case CZ_ERR_NOMEM: return "out of memory";
    case CZ_ERR_IO: return "I/O error";
    case CZ_ERR_FORMAT: return "malformed input";
    case CZ_ERR_TRUNCATED: return "input truncated";
    case CZ_ERR_NOT_CANONICAL: return "field element not canonical (>= modulus)";
    case CZ_ERR_ENCODING_FLAGS: return "invalid point encoding flags";
    case CZ_ERR_INFINITY_ENCODING: return "non-canonical encoding of the point at infinity";
    case CZ_ERR_NOT_ON_CURVE: return "point not on curve";
    case CZ_ERR_NOT_IN_SUBGROUP: return "point not in the prime-order subgroup";
    case CZ_ERR_NO_SQRT: return "compressed x-coordinate has no point on the curve";
    case CZ_ERR_IDENTITY: return "unexpected point at infinity";
    case CZ_ERR_UNSATISFIED: return "witness does not satisfy the circuit";
    case CZ_ERR_MISMATCH: return "inputs do not match";
    case CZ_ERR_UNSUPPORTED: return "unsupported";
    case CZ_ERR_CANCELLED: return "cancelled";
    case CZ_ERR_TIMEOUT: return "timed out";
    case CZ_ERR_BUDGET: return "does not fit the memory budget";
    case CZ_ERR_NOT_FOUND: return "not found";
    case CZ_ERR_BUSY: return "busy";
    case CZ_ERR_INTERNAL: return "internal error";
    case CZ_ERR_QUEUE_FULL: return "queue full";
    case CZ_ERR_DEVICE: return "the device failed; the work may succeed on another device";
    }
    return "unknown status";
}

cz_status cz_err(cz_errbuf *err, cz_status st, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
        va_end(ap);
    }
    return st;
}
