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
# The lane generator must refuse a mix whose FMA chains would leave their
# binade for the MSM's raw operands: two hi chains a column (the default
# is four) sum up to eight limb products of up to 3·2^97.
if python3 "$d/gen_fp_x4_avx2.py" fp 2 6 2 1 > /dev/null 2> "$t/err"; then
    echo "gen_fp_x4_avx2.py fp 2 6 2 1: accepted two chains a column"
    fail=1
elif ! grep -q "hi chain overflows" "$t/err"; then
    echo "gen_fp_x4_avx2.py fp 2 6 2 1: failed for another reason"
    cat "$t/err"
    fail=1
fi
[ $fail = 0 ] && echo "4 generated headers match their generators; the chain bound holds"
exit $fail
