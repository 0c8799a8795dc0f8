/*
 * The default parameter directory (see cuzk/common.h): one rule for the
 * cuzk command, cuzkd and the benchmarks.
 */
#include <stdlib.h>
#include "cuzk/common.h"

const char *cz_default_param_dir(void)
{
    const char *e = getenv("CUZK_PARAM_DIR");
    return e && *e ? e : "cuzk-params";
}
