/**
 * BC7 mode 1 encoder of one opaque block (WGSL, uses the kernel prelude's `texels`, `putBits`):
 * two subsets chosen among the format's 64 partitions, RGB endpoints of 6 bits plus a p-bit shared
 * per subset, 3-bit indices. The partition is the one whose two subsets lie closest to a line
 * each (the covariance's residual beyond its principal axis, from per-texel moments summed once
 * per partition), then each subset is fitted as in mode 6: principal axis, exhaustive indices,
 * least squares while the error drops. Mode 1 wins over mode 6 on blocks that straddle an edge
 * (pebble rims, road markings), where one line through colour space cannot hold both sides.
 * Tables: the BC7 specification's two-subset partitions (bit i = subset of texel i) and the
 * second subset's anchor texel.
 */
export const BC7_MODE1_ENCODER_WGSL = /* wgsl */ `
const BC7_PARTITIONS2 = array<u32, 64>(
  0xCCCCu, 0x8888u, 0xEEEEu, 0xECC8u, 0xC880u, 0xFEECu, 0xFEC8u, 0xEC80u,
  0xC800u, 0xFFECu, 0xFE80u, 0xE800u, 0xFFE8u, 0xFF00u, 0xFFF0u, 0xF000u,
  0xF710u, 0x008Eu, 0x7100u, 0x08CEu, 0x008Cu, 0x7310u, 0x3100u, 0x8CCEu,
  0x088Cu, 0x3110u, 0x6666u, 0x366Cu, 0x17E8u, 0x0FF0u, 0x718Eu, 0x399Cu,
  0xAAAAu, 0xF0F0u, 0x5A5Au, 0x33CCu, 0x3C3Cu, 0x55AAu, 0x9696u, 0xA55Au,
  0x73CEu, 0x13C8u, 0x324Cu, 0x3BDCu, 0x6996u, 0xC33Cu, 0x9966u, 0x0660u,
  0x0272u, 0x04E4u, 0x4E40u, 0x2720u, 0xC936u, 0x936Cu, 0x39C6u, 0x639Cu,
  0x9336u, 0x9CC6u, 0x817Eu, 0xE718u, 0xCCF0u, 0x0FCCu, 0x7744u, 0xEE22u);

const BC7_ANCHOR2 = array<u32, 64>(
  15u, 15u, 15u, 15u, 15u, 15u, 15u, 15u, 15u, 15u, 15u, 15u, 15u, 15u, 15u, 15u,
  15u, 2u, 8u, 2u, 2u, 8u, 8u, 15u, 2u, 8u, 2u, 2u, 8u, 8u, 2u, 2u,
  15u, 15u, 6u, 8u, 2u, 8u, 15u, 15u, 2u, 8u, 2u, 2u, 2u, 15u, 15u, 6u,
  6u, 2u, 6u, 8u, 15u, 15u, 2u, 2u, 15u, 15u, 15u, 15u, 15u, 2u, 2u, 15u);

const BC7_WEIGHTS3 = array<f32, 8>(0.0, 9.0, 18.0, 27.0, 37.0, 46.0, 55.0, 64.0);

struct Mode1Pair {
  lo: vec3<f32>,
  hi: vec3<f32>,
  codeLo: vec3<u32>,
  codeHi: vec3<u32>,
  pbit: u32,
};

var<private> mode1Indices: array<u32, 16>;
var<private> mode1Trial: array<u32, 16>;
var<private> mode1Pairs: array<Mode1Pair, 2>;
var<private> squares: array<vec3<f32>, 16>;
var<private> crosses: array<vec3<f32>, 16>;

// What a 6-bit code with p-bit decodes to: 7 bits (code, p), widened to 8 by repeating the top bit.
fn mode1Value(code: vec3<f32>, p: f32) -> vec3<f32> {
  let v = code * 2.0 + p;
  return v * 2.0 + floor(v / 64.0);
}

fn quantizeMode1Pair(e0: vec3<f32>, e1: vec3<f32>) -> Mode1Pair {
  var best = Mode1Pair(vec3<f32>(0.0), vec3<f32>(0.0), vec3<u32>(0u), vec3<u32>(0u), 0u);
  var bestError = 1e30;
  for (var p = 0u; p < 2u; p++) {
    let fp = f32(p);
    let c0 = clamp(round((e0 * (127.0 / 255.0) - fp) * 0.5), vec3<f32>(0.0), vec3<f32>(63.0));
    let c1 = clamp(round((e1 * (127.0 / 255.0) - fp) * 0.5), vec3<f32>(0.0), vec3<f32>(63.0));
    let v0 = mode1Value(c0, fp);
    let v1 = mode1Value(c1, fp);
    let error = dot(v0 - e0, v0 - e0) + dot(v1 - e1, v1 - e1);
    if (error < bestError) {
      bestError = error;
      best = Mode1Pair(v0, v1, vec3<u32>(c0), vec3<u32>(c1), p);
    }
  }
  return best;
}

// Residual of a subset's colours beyond their principal axis, from its moments: n texels, sum s,
// squares xx (r², g², b²) and cross products xy (rg, rb, gb).
fn lineResidual(n: f32, s: vec3<f32>, xx: vec3<f32>, xy: vec3<f32>) -> f32 {
  if (n < 1.0) {
    return 0.0;
  }
  let m = s / n;
  let d = xx - s * m;
  let o = xy - s.xxy * m.yzz;
  let cov = mat3x3<f32>(vec3<f32>(d.x, o.x, o.y), vec3<f32>(o.x, d.y, o.z), vec3<f32>(o.y, o.z, d.z));
  var v = select(select(cov[2], cov[1], d.y >= d.z), cov[0], d.x >= d.y && d.x >= d.z);
  for (var k = 0u; k < 4u; k++) {
    let len = length(v);
    if (len < 1e-6) {
      return 0.0;
    }
    v = cov * (v / len);
  }
  let len = length(v);
  let lambda = select(0.0, dot(v, cov * v) / (len * len), len > 1e-6);
  return max(d.x + d.y + d.z - lambda, 0.0);
}

fn bestPartition2() -> u32 {
  var total = vec3<f32>(0.0);
  var totalSquares = vec3<f32>(0.0);
  var totalCrosses = vec3<f32>(0.0);
  for (var i = 0u; i < 16u; i++) {
    let c = texels[i].rgb;
    squares[i] = c * c;
    crosses[i] = c.xxy * c.yzz;
    total += c;
    totalSquares += squares[i];
    totalCrosses += crosses[i];
  }
  var best = 0u;
  var bestScore = 1e30;
  for (var p = 0u; p < 64u; p++) {
    let mask = BC7_PARTITIONS2[p];
    var n1 = 0.0;
    var s1 = vec3<f32>(0.0);
    var xx1 = vec3<f32>(0.0);
    var xy1 = vec3<f32>(0.0);
    for (var i = 0u; i < 16u; i++) {
      let f = f32((mask >> i) & 1u);
      n1 += f;
      s1 += f * texels[i].rgb;
      xx1 += f * squares[i];
      xy1 += f * crosses[i];
    }
    let score = lineResidual(n1, s1, xx1, xy1) + lineResidual(16.0 - n1, total - s1, totalSquares - xx1, totalCrosses - xy1);
    if (score < bestScore) {
      bestScore = score;
      best = p;
    }
  }
  return best;
}

// Indices of the texels of subset 'subset' into mode1Trial; returns their squared error.
fn selectMode1Indices(mask: u32, subset: u32, lo: vec3<f32>, hi: vec3<f32>) -> f32 {
  var palette: array<vec3<f32>, 8>;
  for (var k = 0u; k < 8u; k++) {
    let w = BC7_WEIGHTS3[k];
    palette[k] = floor(((64.0 - w) * lo + w * hi + 32.0) / 64.0);
  }
  var total = 0.0;
  for (var i = 0u; i < 16u; i++) {
    if (((mask >> i) & 1u) != subset) {
      continue;
    }
    var bestIndex = 0u;
    var bestError = 1e30;
    for (var k = 0u; k < 8u; k++) {
      let d = palette[k] - texels[i].rgb;
      let error = dot(d, d);
      if (error < bestError) {
        bestError = error;
        bestIndex = k;
      }
    }
    mode1Trial[i] = bestIndex;
    total += bestError;
  }
  return total;
}

fn keepMode1Indices(mask: u32, subset: u32) {
  for (var i = 0u; i < 16u; i++) {
    if (((mask >> i) & 1u) == subset) {
      mode1Indices[i] = mode1Trial[i];
    }
  }
}

fn fitMode1Subset(mask: u32, subset: u32) -> f32 {
  var n = 0.0;
  var mean = vec3<f32>(0.0);
  for (var i = 0u; i < 16u; i++) {
    if (((mask >> i) & 1u) == subset) {
      n += 1.0;
      mean += texels[i].rgb;
    }
  }
  mean /= n;
  var cov = mat3x3<f32>(vec3<f32>(0.0), vec3<f32>(0.0), vec3<f32>(0.0));
  for (var i = 0u; i < 16u; i++) {
    if (((mask >> i) & 1u) == subset) {
      let d = texels[i].rgb - mean;
      cov += mat3x3<f32>(d * d.x, d * d.y, d * d.z);
    }
  }
  var axis = cov[0] + cov[1] + cov[2];
  for (var k = 0u; k < 6u; k++) {
    let next = cov * axis;
    let len = length(next);
    if (len < 1e-6) {
      break;
    }
    axis = next / len;
  }
  let axisLength = length(axis);
  axis = select(vec3<f32>(0.0), axis / axisLength, axisLength > 1e-6);
  var tMin = 0.0;
  var tMax = 0.0;
  for (var i = 0u; i < 16u; i++) {
    if (((mask >> i) & 1u) == subset) {
      let t = dot(texels[i].rgb - mean, axis);
      tMin = min(tMin, t);
      tMax = max(tMax, t);
    }
  }
  var pair = quantizeMode1Pair(
    clamp(mean + axis * tMin, vec3<f32>(0.0), vec3<f32>(255.0)),
    clamp(mean + axis * tMax, vec3<f32>(0.0), vec3<f32>(255.0)),
  );
  var bestError = selectMode1Indices(mask, subset, pair.lo, pair.hi);
  keepMode1Indices(mask, subset);
  for (var round = 0u; round < 2u && bestError > 0.0; round++) {
    var a = 0.0;
    var b = 0.0;
    var c = 0.0;
    var x0 = vec3<f32>(0.0);
    var x1 = vec3<f32>(0.0);
    for (var i = 0u; i < 16u; i++) {
      if (((mask >> i) & 1u) == subset) {
        let w = BC7_WEIGHTS3[mode1Indices[i]] / 64.0;
        let v = 1.0 - w;
        a += v * v;
        b += v * w;
        c += w * w;
        x0 += v * texels[i].rgb;
        x1 += w * texels[i].rgb;
      }
    }
    let det = a * c - b * b;
    if (abs(det) < 1e-6) {
      break;
    }
    let next = quantizeMode1Pair(
      clamp((c * x0 - b * x1) / det, vec3<f32>(0.0), vec3<f32>(255.0)),
      clamp((a * x1 - b * x0) / det, vec3<f32>(0.0), vec3<f32>(255.0)),
    );
    let error = selectMode1Indices(mask, subset, next.lo, next.hi);
    if (error >= bestError) {
      break;
    }
    bestError = error;
    pair = next;
    keepMode1Indices(mask, subset);
  }
  // The subset's anchor index has an implicit top bit of 0: swap its endpoints when it is set.
  let anchor = select(0u, BC7_ANCHOR2[mode1Partition], subset == 1u);
  if (mode1Indices[anchor] >= 4u) {
    pair = Mode1Pair(pair.hi, pair.lo, pair.codeHi, pair.codeLo, pair.pbit);
    for (var i = 0u; i < 16u; i++) {
      if (((mask >> i) & 1u) == subset) {
        mode1Indices[i] = 7u - mode1Indices[i];
      }
    }
  }
  mode1Pairs[subset] = pair;
  return bestError;
}

var<private> mode1Partition: u32;

// Fits mode 1 on the best partition; returns the block's squared error (alpha exact: opaque only).
fn fitBc7Mode1() -> f32 {
  mode1Partition = bestPartition2();
  let mask = BC7_PARTITIONS2[mode1Partition];
  return fitMode1Subset(mask, 0u) + fitMode1Subset(mask, 1u);
}

fn packBc7Mode1() {
  let anchor = BC7_ANCHOR2[mode1Partition];
  putBits(2u, 2u); // mode 1: one 0 bit, then a 1
  putBits(mode1Partition, 6u);
  for (var ch = 0u; ch < 3u; ch++) {
    putBits(mode1Pairs[0].codeLo[ch], 6u);
    putBits(mode1Pairs[0].codeHi[ch], 6u);
    putBits(mode1Pairs[1].codeLo[ch], 6u);
    putBits(mode1Pairs[1].codeHi[ch], 6u);
  }
  putBits(mode1Pairs[0].pbit, 1u);
  putBits(mode1Pairs[1].pbit, 1u);
  for (var i = 0u; i < 16u; i++) {
    putBits(mode1Indices[i], select(3u, 2u, i == 0u || i == anchor));
  }
}
`;
