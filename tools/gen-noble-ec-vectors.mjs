// Known answers for the G1/G2 layer from an independent implementation,
// @noble/curves (pinned in tools/noble/package.json + package-lock.json).
//
// Regenerate (writes tests/vectors/noble_ec.json; deterministic):
//   (cd tools/noble && npm ci) && node tools/gen-noble-ec-vectors.mjs
//
// Contents (all hex, no 0x; points in the zcash encoding of docs/design.md §3.1):
//   scalars[]: k (32-byte big-endian, k < r) and k·G1, k·G2, compressed and
//              uncompressed. Includes 1, 2, r-1 and pseudo-random k.
//   sums[]:    a·G + b·G for pseudo-random a, b, as the two summand
//              encodings and the compressed sum (plus one doubling; noble
//              refuses to encode infinity, whose encoding the k = 0 entries
//              of tests/vectors/bls12_381 cover).
//   cofactor[]: on-curve points outside the subgroup (x = hash, y the
//              root of x^3 + b with the zcash "smaller" sign), written as raw
//              uncompressed coordinates (no flags), and noble's
//              clearCofactor() of them, compressed.
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bls12_381 } from './noble/node_modules/@noble/curves/bls12-381.js';

const here = dirname(fileURLToPath(import.meta.url));
const out = join(here, '..', 'tests', 'vectors', 'noble_ec.json');

const G1 = bls12_381.G1.Point;
const G2 = bls12_381.G2.Point;
const { Fp, Fp2, Fr } = bls12_381.fields;
const r = Fr.ORDER;
const p = Fp.ORDER;

let ctr = 0;
function rand512() { // deterministic stream: SHA-512("cuzk-noble-ec" || counter)
  const h = createHash('sha512').update(`cuzk-noble-ec-${ctr++}`).digest('hex');
  return BigInt('0x' + h);
}
const randScalar = () => rand512() % r;  // 512 bits mod r: near uniform
const randFp = () => rand512() % p;
const hex = (u8) => Buffer.from(u8).toString('hex');
const be = (n, len) => n.toString(16).padStart(2 * len, '0');

const scalars = [];
const ks = [1n, 2n, 3n, r - 1n, r - 2n];
while (ks.length < 24) ks.push(randScalar());
for (const k of ks) {
  const a = G1.BASE.multiply(k), b = G2.BASE.multiply(k);
  scalars.push({ k: be(k, 32), g1c: hex(a.toBytes(true)), g1u: hex(a.toBytes(false)),
                 g2c: hex(b.toBytes(true)), g2u: hex(b.toBytes(false)) });
}

const sums = [];
function addSum(a, b) {
  const pa1 = G1.BASE.multiply(a), pb1 = G1.BASE.multiply(b);
  const pa2 = G2.BASE.multiply(a), pb2 = G2.BASE.multiply(b);
  sums.push({ a_g1: hex(pa1.toBytes(true)), b_g1: hex(pb1.toBytes(true)),
              sum_g1: hex(pa1.add(pb1).toBytes(true)),
              a_g2: hex(pa2.toBytes(true)), b_g2: hex(pb2.toBytes(true)),
              sum_g2: hex(pa2.add(pb2).toBytes(true)) });
}
for (let i = 0; i < 12; i++) addSum(randScalar(), randScalar());
const d = randScalar();
addSum(d, d);          // doubling through the addition API

const cofactor = [];
for (let i = 0; i < 8; i++) {
  let x, y;
  for (;;) { // G1: first x in the stream with x^3 + 4 a square
    x = randFp();
    const rhs = Fp.add(Fp.mul(Fp.sqr(x), x), 4n);
    try { y = Fp.sqrt(rhs); } catch { continue; }
    if (Fp.eql(Fp.sqr(y), rhs)) break;
  }
  if (y > (p - 1n) / 2n) y = Fp.neg(y);
  const P = G1.fromAffine({ x, y });
  cofactor.push({ group: 'g1', raw: be(x, 48) + be(y, 48),
                  in_subgroup: P.isTorsionFree(), cleared: hex(P.clearCofactor().toBytes(true)) });
}
for (let i = 0; i < 8; i++) {
  let x, y;
  for (;;) { // G2: x^3 + 4(1+u) a square in Fp2
    x = Fp2.fromBigTuple([randFp(), randFp()]);
    const rhs = Fp2.add(Fp2.mul(Fp2.sqr(x), x), Fp2.fromBigTuple([4n, 4n]));
    try { y = Fp2.sqrt(rhs); } catch { continue; }
    if (Fp2.eql(Fp2.sqr(y), rhs)) break;
  }
  const P = G2.fromAffine({ x, y });
  cofactor.push({ group: 'g2', raw: be(x.c1, 48) + be(x.c0, 48) + be(y.c1, 48) + be(y.c0, 48),
                  in_subgroup: P.isTorsionFree(), cleared: hex(P.clearCofactor().toBytes(true)) });
}

const doc = {
  generator: 'tools/gen-noble-ec-vectors.mjs with @noble/curves 2.4.0',
  note: 'zcash encodings (docs/design.md §3.1); k is 32-byte big-endian; cofactor.raw is x||y without flags (Fp2: c1||c0)',
  scalars, sums, cofactor,
};
// One record per line: easy to read for the small parser in tests/ec.
const lines = ['{', `"generator": ${JSON.stringify(doc.generator)},`, `"note": ${JSON.stringify(doc.note)},`];
for (const key of ['scalars', 'sums', 'cofactor']) {
  lines.push(`"${key}": [`);
  doc[key].forEach((e, i) => lines.push(JSON.stringify(e) + (i + 1 < doc[key].length ? ',' : '')));
  lines.push(key === 'cofactor' ? ']' : '],');
}
lines.push('}');
writeFileSync(out, lines.join('\n') + '\n');
console.log(`wrote ${out}: ${scalars.length} scalars, ${sums.length} sums, ${cofactor.length} cofactor cases`);
