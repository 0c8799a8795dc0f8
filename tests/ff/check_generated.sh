#!/bin/sh
# The generated asm headers of src/ff must be what their generators print
# now: a generator edited without regenerating (or a header edited by
# hand) fails here, naming the file.
# Usage: check_generated.sh SRC_FF_DIR
set -eu
d=$1
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
fail=0
check() { # header, generator arguments...
    h=$1
    g=$2
    shift 2
    python3 "$d/$g" "$@" > "$t/out" 2>"$t/err" || { echo "$g $*: failed"; cat "$t/err"; fail=1; return; }
    if ! cmp -s "$t/out" "$d/$h"; then
        echo "src/ff/$h differs from what its generator prints now: regenerate it"
        fail=1
    fi
}
check mont_adx.h gen_mont_adx.py
check fp_x4_avx2_asm.h gen_fp_x4_avx2.py
check fp_x4_sqr_avx2_asm.h gen_fp_x4_avx2.py fp-sqr
check fr_x4_avx2_asm.h gen_fp_x4_avx2.py fr
[ $fail = 0 ] && echo "4 generated headers match their generators"
exit $fail
