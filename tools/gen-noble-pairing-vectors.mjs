// Known answers for the pairing layer from an independent implementation,
// @noble/curves (pinned in tools/noble/package.json + package-lock.json).
//
// Regenerate (writes tests/vectors/noble_pairing.json; deterministic):
//   (cd tools/noble && npm ci) && node tools/gen-noble-pairing-vectors.mjs
//
// Contents (read by tests/pairing/test_pairing.c):
//   cases[]: a, b (hex scalars), p_compressed = [a]G1, q_compressed = [b]G2
//            (zcash encoding, hex without 0x) and pairing = e(P, Q).
//   multi[]: n, pairs[] (same fields as a case) and pairing = the product of
//            the n pairings (noble's pairingBatch: one final exponentiation).
// A GT element is written as 6 Fp2 [c0.c0, c0.c1, c0.c2, c1.c0, c1.c1, c1.c2]
// of f = c0 + c1 w, ci = ci.c0 + ci.c1 v + ci.c2 v^2, each Fp2 as
// [real, imaginary] canonical big-endian hex with 0x (the layout of
// tests/vectors/bls12_381/pairings.json).
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bls12_381 } from './noble/node_modules/@noble/curves/bls12-381.js';

const here = dirname(fileURLToPath(import.meta.url));
const out = join(here, '..', 'tests', 'vectors', 'noble_pairing.json');

const G1 = bls12_381.G1.Point;
const G2 = bls12_381.G2.Point;
const { Fr } = bls12_381.fields;
const r = Fr.ORDER;

let ctr = 0;
function rand512() { // deterministic stream: SHA-512("cuzk-noble-pairing-" || counter)
  const h = createHash('sha512').update(`cuzk-noble-pairing-${ctr++}`).digest('hex');
  return BigInt('0x' + h);
}
const randScalar = () => 1n + rand512() % (r - 1n); // nonzero: noble rejects infinity
const hex = (u8) => Buffer.from(u8).toString('hex');
const h48 = (n) => '0x' + n.toString(16).padStart(96, '0');
const fp2 = (x) => [h48(x.c0), h48(x.c1)];
const gt = (f) => [f.c0.c0, f.c0.c1, f.c0.c2, f.c1.c0, f.c1.c1, f.c1.c2].map(fp2);

function pair(a, b) {
  const P = G1.BASE.multiply(a), Q = G2.BASE.multiply(b);
  return { rec: { a: '0x' + a.toString(16), b: '0x' + b.toString(16),
                  p_compressed: hex(P.toBytes(true)), q_compressed: hex(Q.toBytes(true)) },
           P, Q };
}

const cases = [];
for (let i = 0; i < 8; i++) {
  const { rec, P, Q } = pair(randScalar(), randScalar());
  cases.push({ ...rec, pairing: gt(bls12_381.pairing(P, Q)) });
}

const multi = [];
for (const n of [3, 5]) {
  const ps = [];
  for (let i = 0; i < n; i++) ps.push(pair(randScalar(), randScalar()));
  const f = bls12_381.pairingBatch(ps.map(({ P, Q }) => ({ g1: P, g2: Q })));
  multi.push({ n, pairs: ps.map((x) => x.rec), pairing: gt(f) });
}
{ // e([a]G1, [b]G2) · e([r - a]G1, [b]G2) = 1
  const a = randScalar(), b = randScalar();
  const ps = [pair(a, b), pair(r - a, b)];
  const f = bls12_381.pairingBatch(ps.map(({ P, Q }) => ({ g1: P, g2: Q })));
  multi.push({ n: 2, pairs: ps.map((x) => x.rec), pairing: gt(f) });
}

const doc = {
  source: 'tools/gen-noble-pairing-vectors.mjs with @noble/curves ' +
    JSON.parse((await import('node:fs')).readFileSync(
      join(here, 'noble', 'node_modules', '@noble', 'curves', 'package.json'), 'utf8')).version,
  tower: 'Fp2 = Fp[u]/(u^2+1); Fp6 = Fp2[v]/(v^3-(u+1)); Fp12 = Fp6[w]/(w^2-v)',
  layout: 'pairing: 6 Fp2 elements [c0.c0, c0.c1, c0.c2, c1.c0, c1.c1, c1.c2] of f = c0 + c1*w, ' +
    'ci = ci.c0 + ci.c1*v + ci.c2*v^2; each Fp2 as [real, imaginary] canonical big-endian hex',
  cases,
  multi,
};
writeFileSync(out, JSON.stringify(doc, null, 1) + '\n');
console.log(`wrote ${out}: ${cases.length} cases, ${multi.length} multi-pairings`);
