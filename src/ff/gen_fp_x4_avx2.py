#!/usr/bin/env python3
"""Generates src/ff/fp_x4_avx2_asm.h: fourteen Fp products in one asm block,
eight on AVX2 + FMA lanes and six on the MULX/ADX multiplier.

Run: python3 src/ff/gen_fp_x4_avx2.py > src/ff/fp_x4_avx2_asm.h
     python3 src/ff/gen_fp_x4_avx2.py fp-sqr > src/ff/fp_x4_sqr_avx2_asm.h
     python3 src/ff/gen_fp_x4_avx2.py fr > src/ff/fr_x4_avx2_asm.h
(the Fr block: six 48-bit limbs and eight four-limb MULX products,
fr_x4.h; optional second to fifth arguments: lane groups, MULX
products, hi chains and lo sums a column, for trying other mixes; the Fr
block measured 2_8 9.0 ns a product, 3_8 9.5, 2_4 10.3, 3_4 10.4, 4_4
10.8, against 16.4 ns for four MULX chains, on a Zen 4 EPYC at 2.6 GHz,
in its earlier split form)

Why two kinds of product in one block. The lane products keep the FMA and
vector ALU pipes busy and leave the integer pipes idle; a MULX product is
the reverse. Interleaving instruction by instruction lets the out-of-order
core run both at once, so the block finishes its products in less time
than either kind alone would take for as many. Measured on Zen 4 (the IFMA
lanes off; `cuzk bench field`, thread CPU time, the fastest of 30 rounds
each; "v_s": v lane groups of four, s MULX products):
    4_0 (the earlier all-lane kernel) 17.9 ns a product, 3_0 19.3,
    2_8 15.0, 3_4 15.2, 3_5 15.0, 2_6 15.4, 2_4 17.7, 1_8 17.6,
    against 21.6 ns for four independent MULX products alone.
Past ~4,300 instructions (~30 KB of code, near the 32 KB L1 instruction
cache; Zen 4's op cache cannot hold it either) the block halves in speed
(4_4: 30.6 ns, 3_6: 29.8), so NS and KS are chosen together. 2_8 (4,176
instructions, 28 KB) was kept first; on a later Zen 4 VM of the same
family it sat past that edge: 24.1-24.9 ns a product in every process,
against 16.3-16.5 for 2_6 (3,664 instructions), 16.4-16.6 for 2_5 and
17.0-17.2 for 2_4, and 2_7 (3,920) 16.9, 22.7 or 29.5 by process
(interleaved in one process, 2_6 took 0.64-0.65x 2_8's time and was the
faster in 990 of 1,000 pairs). The G1 and G2 MSMs took 0.95x and 0.93x the CPU time on
2_6 (medians of 12 alternated processes). So the Fp block is 2_6: the
margin below the edge is worth more than two more products a call.
(Those counts are the split form's; the FMA chains took 2_6 to 3,470
instructions, 23.4 KB. On an Intel Xeon without IFMA in use, 2_4 and 1_4
cost 24.2 and 25.5 ns a product against 2_6's 25.1: no edge there.)

Lane groups ("streams"): each group's serial Montgomery chain (column c's
m needs column c complete, which needs m of column c - 1) hides behind the
other group and the MULX stream. Registers: per group the next column's
integer sum, NH hi chains and NE lo sums while a column runs (4 and 1 in
the Fp blocks, 1 and 1 in Fr's), the operand A and two temporaries
shared by all groups (register renaming keeps them independent); C1 and
CC are read from memory. The generator moves registers between roles as
it goes: a product's hi half lands in a temporary, and the chain's old
register becomes one. The MULX products use ten general registers of their own (seven
accumulator limbs, lo, hi and RDX; CIOS from gen_mont_adx.py, run one
after another: renaming overlaps them) besides the three pointers w, k
and r.

Layout (fp_x4_avx2.c fills it): group s's a limbs as doubles at w + 768s,
its b limbs at w + 768s + 256, the m of each column stored at w + 768s +
512 as it is found; MULX product j's operands (six 64-bit limbs each) at
w + W_SCALAR + 96j and + 48. Constants at k (see K_* below), the
modulus block of the MULX products (m, -1/m mod 2^64, 0) at k + K_MOD.
Results to r: group s's eight 48-bit limbs of four lanes at r + 256s,
product j's limbs at r + R_SCALAR + 48j (the struct cz__fp_x16).

Lane products, product scanning: column c adds lo(a_i·b_j) and lo(m_i·p_j)
for i + j = c to its sum and the hi halves to the next column's; columns
0..7 then find m_c = sum·(-1/p) mod 2^48 and carry sum + lo(m_c·p_0) (= 0
mod 2^48) on; columns 8..15 give the result limbs. How a limb product is
split and summed, and the bias bookkeeping, are described in
fp_x4_avx2.c: NH hi chains and NE lo sums a column (the fourth and fifth
arguments), two FMAs, a subtraction and an addition a limb product. The
generator asserts that each chain and sum stays in its binade for the
operand bounds its users keep: for the MSM's raw Fp operands, with one
lo sum, that takes four chains. The MULX
products skip the final subtraction: operands < 2p give a result < 2p
(a·b < 4p^2 < p·2^384), the lanes' contract.

Squares (fp-sqr, for the MSM's λ² and G2's norms): the same layout but
for b, whose place holds the doubled limbs 2·a_i; a column adds
(2·a_i)·a_j for i < j and a_i² for i = j, 36 limb products rather than
64 (the 64 of the reduction stay), and the MULX squares are gen_sqr's,
whose spilled limbs go to a buffer of 2·ML limbs behind each operand.
1,736 + 1,572 instructions against 2,128 + 1,536, and 0.88x the
product's time on the Zen 4 (14.6 against 16.6 ns; with gen_mul's rows
on the MULX side instead, 0.93x).
"""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gen_mont_adx import gen_mul, gen_sqr  # noqa: E402

# The field: "fp" (the default: eight 48-bit limbs, R = 2^384, six-limb
# MULX products) or "fr" (six 48-bit limbs, R = 2^288, four-limb MULX
# products), from the command line.
# "fp-sqr": the Fp block's squares (see SQR below).
MODE = sys.argv[1] if len(sys.argv) > 1 else "fp"
assert MODE in ("fp", "fr", "fp-sqr"), MODE
FIELD = MODE.split("-")[0]
SQR = MODE.endswith("-sqr")
NL = 8 if FIELD == "fp" else 6   # 48-bit limbs of a lane value
ML = 6 if FIELD == "fp" else 4   # 64-bit limbs of a MULX value
PFX = {"fp": "CZ_FP_X4_ASM", "fr": "CZ_FR_X4_ASM", "fp-sqr": "CZ_FP_X4_SQR_ASM"}[MODE]
NS = int(sys.argv[2]) if len(sys.argv) > 2 else 2  # lane groups of four
KS = int(sys.argv[3]) if len(sys.argv) > 3 else (6 if FIELD == "fp" else 8)  # MULX products
NH = int(sys.argv[4]) if len(sys.argv) > 4 else (4 if FIELD == "fp" else 1)  # hi chains a column of a group
NE = int(sys.argv[5]) if len(sys.argv) > 5 else 1  # lo sums a column of a group
assert 1 <= NE <= NH
# constant block offsets (bytes; each entry is four equal 64-bit lanes)
K_C1, K_CC, K_PL, K_PH, K_M48, K_E52, K_TWO52, K_BC2, K_OFF62 = (32 * i for i in range(9))
def K_P(j): return 288 + 32 * j                  # the modulus's limbs as doubles
def K_BPRE(c): return 288 + 32 * NL + 32 * c     # column c's bias before m_c (c < NL)
def K_BCOL(c): return 288 + 64 * NL + 32 * (c - NL)  # column c's bias (c >= NL)
K_MOD = 288 + 96 * NL                            # the MULX products' modulus block
K_BYTES = K_MOD + 64
W_GROUP = 96 * NL
W_SCALAR = W_GROUP * NS                  # MULX operands
# one MULX product's two operands; a square's operand and the 2·ML-limb
# buffer of gen_sqr (the limbs of a² it spills), which must not overlap
# the operand: the operand is read until the last row
W_OP = 16 * ML if not SQR else 24 * ML
W_BYTES = W_SCALAR + W_OP * KS
R_SCALAR = 32 * NL * NS                  # MULX results
def W_A(s, i): return W_GROUP * s + 32 * i
def W_B(s, j): return W_GROUP * s + 32 * NL + 32 * j
def W_M(s, i): return W_GROUP * s + 64 * NL + 32 * i

Y_A = 13  # the a operand of a limb product; the other registers change roles
out = []
def e(x): out.append(x)
def y(n): return "%%%%ymm%d" % n
def kk(off): return "%d(%%[k])" % off
def ww(off): return "%d(%%[w])" % off

def gen_chains():
    """The lane products with each column's limb products summed in NH hi
    chains and NE lo sums a group (see the docstring)."""
    # Registers but A move between roles as the block goes: a limb product
    # leaves its hi half in the register that held the temporary, and the
    # chain's old register becomes the temporary; so the generator tracks
    # which register plays which part. C1 and CC are memory operands.
    free = [r for r in range(16) if r != Y_A]
    def take(): return free.pop()
    def give(r): free.append(r)

    H = [[None] * NH for _ in range(NS)]   # each group's hi chains of this column
    E = [[None] * NE for _ in range(NS)]   # ... and its lo sums
    N = [take() for _ in range(NS)]        # each group's next column, an integer

    def term(s, n, aop, bop):
        """Limb product n of a column, a·b, into hi chain n % NH of group s:
        hi = fl(a·b + H) (H plus a·b rounded to a multiple of 2^48, the
        spacing of H's binade), lo = a·b − (hi − H) exact, added to lo sum
        n % NE. A chain starts from C1; the first product of a lo sum takes
        hi − CC in place of hi − C1, so the sum is biased by C2 and its bit
        pattern is an integer plus C2's."""
        k, q = n % NH, n % NE
        h, first = H[s][k], E[s][q] is None
        # NE <= NH: a lo sum's first product is its chain's first too
        assert not first or h is None, "a lo sum starts on a running chain"
        t, l = take(), take()
        e("vmovapd %s, %s" % (aop, y(Y_A)))
        e("vmovapd %s, %s" % (bop, y(t)))
        e("vfmadd213pd %s, %s, %s" % (kk(K_C1) if h is None else y(h), y(Y_A), y(t)))  # t = a·b + H
        e("vsubpd %s, %s, %s" % (kk(K_CC) if first else kk(K_C1) if h is None else y(h), y(t), y(l)))  # t - H
        e("vfmsub231pd %s, %s, %s" % (bop, y(Y_A), y(l)))          # lo = a·b - (t - H)
        if first:
            E[s][q] = l
        else:
            e("vaddpd %s, %s, %s" % (y(l), y(E[s][q]), y(E[s][q])))
            give(l)
        H[s][k] = t
        if h is not None:
            give(h)

    for s in range(NS):
        e("vpxor %s, %s, %s" % (y(N[s]), y(N[s]), y(N[s])))
    for c in range(2 * NL):
        lo, hi = max(0, c - (NL - 1)), min(c, NL - 1)
        # the a·b terms first: they wait for nothing, so they fill the time
        # until the previous column's m arrives for the m·p terms. A square
        # takes each a_i·a_j (i < j) once, as (2·a_i)·a_j from the doubled limbs
        # in b's place, and the a_i² from a: 36 limb products, not 64
        if SQR:
            terms = [(True, i, c - i) for i in range(lo, c // 2 + 1)]
        else:
            terms = [(True, i, c - i) for i in range(lo, hi + 1)]
        terms += [(False, i, c - i) for i in range(lo, (c - 1 if c < NL else NL - 1) + 1)]
        for n, (is_ab, i, j) in enumerate(terms):
            for s in range(NS):
                if is_ab and SQR and i == j:
                    term(s, n, ww(W_A(s, i)), ww(W_A(s, i)))
                elif is_ab and SQR:
                    term(s, n, ww(W_B(s, i)), ww(W_A(s, j)))
                elif is_ab:
                    term(s, n, ww(W_A(s, i)), ww(W_B(s, j)))
                else:
                    term(s, n, ww(W_M(s, i)), kk(K_P(j)))
        for s in range(NS):
            A = Y_A
            # x = this column (its lo sums and what N carries in), nx = the
            # next one (this column's hi chains), both as integers: within
            # one binade a double's bit pattern is an integer plus its value
            x = N[s]
            for q in range(NE):
                if E[s][q] is not None:
                    e("vpaddq %s, %s, %s" % (y(E[s][q]), y(x), y(x)))
                    give(E[s][q])
                    E[s][q] = None
            hs = [h for h in H[s] if h is not None]
            H[s] = [None] * NH
            if hs:
                nx = hs[0]
                for h in hs[1:]:
                    e("vpaddq %s, %s, %s" % (y(h), y(nx), y(nx)))
                    give(h)
            else:
                nx = take()
                e("vpxor %s, %s, %s" % (y(nx), y(nx), y(nx)))
            T, L = take(), take()
            if c < NL:
                # x = column + 2^62 (unbiased); m = x·(-1/p) mod 2^48 from 32-bit halves
                e("vpsubq %s, %s, %s" % (kk(K_BPRE(c)), y(x), y(x)))
                e("vpsrlq $32, %s, %s" % (y(x), y(A)))
                e("vpmuludq %s, %s, %s" % (kk(K_PL), y(A), y(A)))
                e("vpmuludq %s, %s, %s" % (kk(K_PH), y(x), y(T)))
                e("vpaddq %s, %s, %s" % (y(A), y(T), y(T)))
                e("vpsllq $32, %s, %s" % (y(T), y(T)))
                e("vpmuludq %s, %s, %s" % (kk(K_PL), y(x), y(A)))
                e("vpaddq %s, %s, %s" % (y(A), y(T), y(T)))
                e("vpand %s, %s, %s" % (kk(K_M48), y(T), y(T)))
                e("vpor %s, %s, %s" % (kk(K_E52), y(T), y(T)))        # exact double of m:
                e("vsubpd %s, %s, %s" % (kk(K_TWO52), y(T), y(A)))    # (2^52 + m) - 2^52
                e("vmovapd %s, %s" % (y(A), ww(W_M(s, c))))
                # m·p_0: hi to the next column; column + lo = 0 mod 2^48: carry it
                e("vmovapd %s, %s" % (kk(K_P(0)), y(T)))
                e("vfmadd213pd %s, %s, %s" % (kk(K_C1), y(A), y(T)))
                e("vsubpd %s, %s, %s" % (kk(K_CC), y(T), y(L)))
                e("vfmsub231pd %s, %s, %s" % (kk(K_P(0)), y(A), y(L)))
                e("vpaddq %s, %s, %s" % (y(T), y(nx), y(nx)))
                e("vpsubq %s, %s, %s" % (kk(K_BC2), y(x), y(x)))
                e("vpaddq %s, %s, %s" % (y(L), y(x), y(x)))
                e("vpsrlq $48, %s, %s" % (y(x), y(x)))
                e("vpaddq %s, %s, %s" % (y(x), y(nx), y(nx)))
            else:
                e("vpsubq %s, %s, %s" % (kk(K_BCOL(c)), y(x), y(x)))   # column + 2^62
                if c < 2 * NL - 1:
                    e("vpand %s, %s, %s" % (kk(K_M48), y(x), y(A)))
                    e("vmovdqa %s, %d(%%[r])" % (y(A), 32 * NL * s + 32 * (c - NL)))
                    e("vpsrlq $48, %s, %s" % (y(x), y(x)))
                    e("vpaddq %s, %s, %s" % (y(x), y(nx), y(nx)))
                else:
                    e("vpsubq %s, %s, %s" % (kk(K_OFF62), y(x), y(x)))
                    e("vmovdqa %s, %d(%%[r])" % (y(x), 32 * NL * s + 32 * (NL - 1)))
            give(T)
            give(L)
            give(x)
            N[s] = nx
        assert len(free) == 16 - 1 - NS, (c, free)
        # Exactness: a hi chain must stay in [2^100, 2^101), where doubles
        # are 2^48 apart, and a lo sum in [2^52, 2^53), where they are 1
        # apart. Bounds of a limb product: an Fp lane operand's limbs up to
        # 2^49.6 on one side and 2^49 on the other (the MSM's raw sums,
        # msm_x16.c), a square's doubled limbs 2^49 against 2^48, Fr's
        # limbs (fr_x4.h), m and the modulus's limbs 2^48; each rounding
        # adds at most 2^47.
        ab = 2.0 ** 97 if SQR else 2.0 ** 98.6 if FIELD == "fp" else 2.0 ** 96
        bound = [ab if t[0] else 2.0 ** 96 for t in terms]
        for k in range(NH):
            mine = bound[k::NH]
            assert sum(mine) + len(mine) * 2.0 ** 47 < 2.0 ** 100, ("hi chain overflows", c, k)
        for q in range(NE):
            assert len(terms[q::NE]) * 2.0 ** 47 < 2.0 ** 51, ("lo sum overflows", c, q)

gen_chains()

# The MULX products, one after another, their operands and modulus
# rebased onto w and k, each result stored to r.
scal = []
for j in range(KS):
    L, acc = gen_sqr(ML) if SQR else gen_mul(ML)
    base = W_SCALAR + W_OP * j
    for l in L:
        # gen_sqr's buffer first: the operands below are rebased onto w too
        l = re.sub(r"(\d+)\(%\[w\]\)", lambda m: "%d(%%[w])" % (int(m.group(1)) + base + 8 * ML), l)
        l = re.sub(r"(\d+)\(%\[a\]\)", lambda m: "%d(%%[w])" % (int(m.group(1)) + base), l)
        l = re.sub(r"(\d+)\(%\[b\]\)", lambda m: "%d(%%[w])" % (int(m.group(1)) + base + 8 * ML), l)
        l = re.sub(r"(\d+)\(%\[m\]\)", lambda m: "%d(%%[k])" % (int(m.group(1)) + K_MOD), l)
        assert "%[a]" not in l and "%[b]" not in l and "%[m]" not in l, l
        scal.append(l)
    for k in range(ML):
        scal.append("movq %%[%s], %d(%%[r])" % (acc[k], R_SCALAR + 8 * ML * j + 8 * k))

# Interleave: after lane instruction i, the MULX stream has advanced to
# (i + 1)/len(out) of its length. Vector instructions leave the flags
# alone, so the ADCX/ADOX chains survive them.
body, j = [], 0
for i, l in enumerate(out):
    body.append(l)
    while j < (i + 1) * len(scal) // len(out):
        body.append(scal[j])
        j += 1
body += scal[j:]

F = FIELD.capitalize()
print("/*")
print(" * GENERATED by src/ff/gen_fp_x4_avx2.py%s — do not edit by hand." % ("" if MODE == "fp" else " " + MODE))
print(" *")
print(" * %d %s Montgomery %s: %d groups of four AVX2 + FMA lanes and %d" %
      (4 * NS + KS, F, "squares" if SQR else "products", NS, KS))
print(" * MULX %s, interleaved (%d + %d instructions), for %s_x4_avx2.c;" %
      ("squares" if SQR else "products", len(out), len(scal), FIELD))
print(" * see the generator for the layout.")
print(" */")
GUARD = "CZ_FF_%s_X4_%sAVX2_ASM_H" % (FIELD.upper(), "SQR_" if SQR else "")
print("#ifndef " + GUARD)
print("#define " + GUARD)
print()
print("#define %s_GROUPS %d" % (PFX, NS))
print("#define %s_SCALARS %d" % (PFX, KS))
print("#define %s_CHAINS %d" % (PFX, NH))
print("#define %s_LO_SUMS %d" % (PFX, NE))
print("#define %s_K_BYTES %d" % (PFX, K_BYTES))
for nm, off in (("C1", K_C1), ("CC", K_CC), ("PINV_LO", K_PL), ("PINV_HI", K_PH), ("M48", K_M48),
                ("E52", K_E52), ("TWO52", K_TWO52), ("BITS_C2", K_BC2), ("OFF62", K_OFF62),
                ("P", K_P(0)), ("BIAS_PRE", K_BPRE(0)), ("BIAS_COL%d" % NL, K_BCOL(NL)), ("MOD", K_MOD)):
    print("#define %s_K_%s %d" % (PFX, nm, off))
print("#define %s_W_GROUP %d" % (PFX, W_GROUP))
print("#define %s_W_SCALAR %d" % (PFX, W_SCALAR))
print("#define %s_W_BYTES %d" % (PFX, W_BYTES))
print("#define %s_R_SCALAR %d" % (PFX, R_SCALAR))
print("#define %s_BODY \\" % PFX)
for l in body:
    print('    "%s\\n\\t" \\' % l)
print('    ""')
print()
print("#endif")
