/**
 * BC7 mode 6 encoder of one block (WGSL, uses the kernel prelude's `texels`, `putBits`): one
 * subset, RGBA endpoints of 7 bits plus a p-bit each, 4-bit indices. Endpoints from the principal
 * axis of the 16 texels (power iteration on the 4x4 covariance), then least-squares refinement
 * against the chosen indices while the exact decoded error drops; indices chosen exhaustively
 * against the palette the decoder builds (`((64 - w) e0 + w e1 + 32) >> 6`).
 */
export const BC7_MODE6_ENCODER_WGSL = /* wgsl */ `
const BC7_WEIGHTS4 = array<f32, 16>(0.0, 4.0, 9.0, 13.0, 17.0, 21.0, 26.0, 30.0, 34.0, 38.0, 43.0, 47.0, 51.0, 55.0, 60.0, 64.0);

struct Mode6Endpoint {
  value: vec4<f32>,
  code: vec4<u32>,
  pbit: u32,
};

var<private> mode6Indices: array<u32, 16>;
var<private> mode6Lo: Mode6Endpoint;
var<private> mode6Hi: Mode6Endpoint;
var<private> mode6Trial: array<u32, 16>;

// The 7-bit code and p-bit closest to 'e' (0..255 per channel), and the 8-bit value it decodes to.
fn quantizeMode6(e: vec4<f32>) -> Mode6Endpoint {
  var best = Mode6Endpoint(vec4<f32>(0.0), vec4<u32>(0u), 0u);
  var bestError = 1e30;
  for (var p = 0u; p < 2u; p++) {
    let code = clamp(round((e - f32(p)) * 0.5), vec4<f32>(0.0), vec4<f32>(127.0));
    let value = code * 2.0 + f32(p);
    let d = value - e;
    let error = dot(d, d);
    if (error < bestError) {
      bestError = error;
      best = Mode6Endpoint(value, vec4<u32>(code), p);
    }
  }
  return best;
}

// Chooses each texel's index against the decoded palette into mode6Trial; returns the block's
// squared error.
fn selectMode6Indices(lo: vec4<f32>, hi: vec4<f32>) -> f32 {
  var palette: array<vec4<f32>, 16>;
  for (var k = 0u; k < 16u; k++) {
    let w = BC7_WEIGHTS4[k];
    palette[k] = floor(((64.0 - w) * lo + w * hi + 32.0) / 64.0);
  }
  var total = 0.0;
  for (var i = 0u; i < 16u; i++) {
    var bestIndex = 0u;
    var bestError = 1e30;
    for (var k = 0u; k < 16u; k++) {
      let d = palette[k] - texels[i];
      let error = dot(d, d);
      if (error < bestError) {
        bestError = error;
        bestIndex = k;
      }
    }
    mode6Trial[i] = bestIndex;
    total += bestError;
  }
  return total;
}

fn principalAxis4(mean: vec4<f32>) -> vec4<f32> {
  var cov = mat4x4<f32>(vec4<f32>(0.0), vec4<f32>(0.0), vec4<f32>(0.0), vec4<f32>(0.0));
  var lo = texels[0];
  var hi = texels[0];
  for (var i = 0u; i < 16u; i++) {
    let d = texels[i] - mean;
    cov += mat4x4<f32>(d * d.x, d * d.y, d * d.z, d * d.w);
    lo = min(lo, texels[i]);
    hi = max(hi, texels[i]);
  }
  var axis = hi - lo;
  for (var n = 0u; n < 8u; n++) {
    let next = cov * axis;
    let len = length(next);
    if (len < 1e-6) {
      break;
    }
    axis = next / len;
  }
  let len = length(axis);
  return select(vec4<f32>(0.0), axis / len, len > 1e-6);
}

// Fits mode 6 into mode6Lo, mode6Hi, mode6Indices; returns the block's squared error (RGBA).
fn fitBc7Mode6() -> f32 {
  var mean = vec4<f32>(0.0);
  for (var i = 0u; i < 16u; i++) {
    mean += texels[i];
  }
  mean /= 16.0;
  let axis = principalAxis4(mean);
  var tMin = 0.0;
  var tMax = 0.0;
  for (var i = 0u; i < 16u; i++) {
    let t = dot(texels[i] - mean, axis);
    tMin = min(tMin, t);
    tMax = max(tMax, t);
  }
  var e0 = quantizeMode6(clamp(mean + axis * tMin, vec4<f32>(0.0), vec4<f32>(255.0)));
  var e1 = quantizeMode6(clamp(mean + axis * tMax, vec4<f32>(0.0), vec4<f32>(255.0)));
  var bestError = selectMode6Indices(e0.value, e1.value);
  mode6Indices = mode6Trial;

  // Least squares on the endpoints for the chosen weights, while it lowers the exact error.
  for (var round = 0u; round < 3u && bestError > 0.0; round++) {
    var a = 0.0;
    var b = 0.0;
    var c = 0.0;
    var x0 = vec4<f32>(0.0);
    var x1 = vec4<f32>(0.0);
    for (var i = 0u; i < 16u; i++) {
      let w = BC7_WEIGHTS4[mode6Indices[i]] / 64.0;
      let v = 1.0 - w;
      a += v * v;
      b += v * w;
      c += w * w;
      x0 += v * texels[i];
      x1 += w * texels[i];
    }
    let det = a * c - b * b;
    if (abs(det) < 1e-6) {
      break;
    }
    let n0 = quantizeMode6(clamp((c * x0 - b * x1) / det, vec4<f32>(0.0), vec4<f32>(255.0)));
    let n1 = quantizeMode6(clamp((a * x1 - b * x0) / det, vec4<f32>(0.0), vec4<f32>(255.0)));
    let error = selectMode6Indices(n0.value, n1.value);
    if (error >= bestError) {
      break;
    }
    bestError = error;
    e0 = n0;
    e1 = n1;
    mode6Indices = mode6Trial;
  }

  // The anchor (texel 0) index has an implicit top bit of 0: swap the endpoints when it is set.
  if (mode6Indices[0] >= 8u) {
    let t = e0;
    e0 = e1;
    e1 = t;
    for (var i = 0u; i < 16u; i++) {
      mode6Indices[i] = 15u - mode6Indices[i];
    }
  }

  mode6Lo = e0;
  mode6Hi = e1;
  return bestError;
}

fn packBc7Mode6() {
  putBits(64u, 7u); // mode 6: six 0 bits, then a 1
  for (var ch = 0u; ch < 4u; ch++) {
    putBits(mode6Lo.code[ch], 7u);
    putBits(mode6Hi.code[ch], 7u);
  }
  putBits(mode6Lo.pbit, 1u);
  putBits(mode6Hi.pbit, 1u);
  putBits(mode6Indices[0], 3u);
  for (var i = 1u; i < 16u; i++) {
    putBits(mode6Indices[i], 4u);
  }
}

// Below this squared error (RMS 2 per channel over the block's 16 texels x 3 channels) mode 6
// is kept without trying mode 1: the block is already near 42 dB, and the two-subset search costs
// more than the rest of the encoder together.
const MODE6_GOOD_ENOUGH: f32 = 192.0;

// False for the compressor's 'mode6' option: mode 1 is never tried (docs/gpu-compression.md).
override TRY_MODE1: bool = true;

// Mode 6, or mode 1 where the block is opaque and two subsets hold it better.
fn encodeBc7() {
  let error6 = fitBc7Mode6();
  var opaque = true;
  for (var i = 0u; i < 16u; i++) {
    opaque = opaque && texels[i].a == 255.0;
  }
  if (TRY_MODE1 && opaque && error6 > MODE6_GOOD_ENOUGH) {
    let error1 = fitBc7Mode1();
    if (error1 < error6) {
      packBc7Mode1();
      return;
    }
  }
  packBc7Mode6();
}
`;
