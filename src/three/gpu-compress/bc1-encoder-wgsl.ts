/**
 * BC1 encoder of one opaque block (WGSL, uses the kernel prelude's `texels`, `putBits`): RGB565
 * endpoints from the principal axis (power iteration on the 3x3 covariance), four-colour mode
 * (color0 > color1) with 2-bit indices chosen exhaustively, then least-squares refinement while
 * the error drops. Alpha is not stored (decodes as opaque).
 */
export const BC1_ENCODER_WGSL = /* wgsl */ `
const BC1_WEIGHTS = array<f32, 4>(0.0, 1.0, 1.0 / 3.0, 2.0 / 3.0);

var<private> bc1Indices: array<u32, 16>;
var<private> bc1Trial: array<u32, 16>;

fn bc1Code(c: vec3<f32>) -> u32 {
  let q = vec3<u32>(round(clamp(c, vec3<f32>(0.0), vec3<f32>(255.0)) * vec3<f32>(31.0, 63.0, 31.0) / 255.0));
  return (q.x << 11u) | (q.y << 5u) | q.z;
}

fn bc1Value(code: u32) -> vec3<f32> {
  let r = (code >> 11u) & 31u;
  let g = (code >> 5u) & 63u;
  let b = code & 31u;
  return vec3<f32>(vec3<u32>((r << 3u) | (r >> 2u), (g << 2u) | (g >> 4u), (b << 3u) | (b >> 2u)));
}

fn selectBc1Indices(c0: vec3<f32>, c1: vec3<f32>) -> f32 {
  var total = 0.0;
  for (var i = 0u; i < 16u; i++) {
    var bestIndex = 0u;
    var bestError = 1e30;
    for (var k = 0u; k < 4u; k++) {
      let d = mix(c0, c1, BC1_WEIGHTS[k]) - texels[i].rgb;
      let error = dot(d, d);
      if (error < bestError) {
        bestError = error;
        bestIndex = k;
      }
    }
    bc1Trial[i] = bestIndex;
    total += bestError;
  }
  return total;
}

fn principalAxis3(mean: vec3<f32>) -> vec3<f32> {
  var cov = mat3x3<f32>(vec3<f32>(0.0), vec3<f32>(0.0), vec3<f32>(0.0));
  var lo = texels[0].rgb;
  var hi = texels[0].rgb;
  for (var i = 0u; i < 16u; i++) {
    let d = texels[i].rgb - mean;
    cov += mat3x3<f32>(d * d.x, d * d.y, d * d.z);
    lo = min(lo, texels[i].rgb);
    hi = max(hi, texels[i].rgb);
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
  return select(vec3<f32>(0.0), axis / len, len > 1e-6);
}

fn encodeBc1() {
  var mean = vec3<f32>(0.0);
  for (var i = 0u; i < 16u; i++) {
    mean += texels[i].rgb;
  }
  mean /= 16.0;
  let axis = principalAxis3(mean);
  var tMin = 0.0;
  var tMax = 0.0;
  for (var i = 0u; i < 16u; i++) {
    let t = dot(texels[i].rgb - mean, axis);
    tMin = min(tMin, t);
    tMax = max(tMax, t);
  }
  var code0 = bc1Code(mean + axis * tMax);
  var code1 = bc1Code(mean + axis * tMin);
  var bestError = selectBc1Indices(bc1Value(code0), bc1Value(code1));
  bc1Indices = bc1Trial;

  for (var round = 0u; round < 3u && bestError > 0.0; round++) {
    var a = 0.0;
    var b = 0.0;
    var c = 0.0;
    var x0 = vec3<f32>(0.0);
    var x1 = vec3<f32>(0.0);
    for (var i = 0u; i < 16u; i++) {
      let w = BC1_WEIGHTS[bc1Indices[i]];
      let v = 1.0 - w;
      a += v * v;
      b += v * w;
      c += w * w;
      x0 += v * texels[i].rgb;
      x1 += w * texels[i].rgb;
    }
    let det = a * c - b * b;
    if (abs(det) < 1e-6) {
      break;
    }
    let n0 = bc1Code((c * x0 - b * x1) / det);
    let n1 = bc1Code((a * x1 - b * x0) / det);
    let error = selectBc1Indices(bc1Value(n0), bc1Value(n1));
    if (error >= bestError) {
      break;
    }
    bestError = error;
    code0 = n0;
    code1 = n1;
    bc1Indices = bc1Trial;
  }

  // Four-colour mode needs color0 > color1: swapping the endpoints swaps index 0 with 1, 2 with 3.
  if (code0 < code1) {
    let t = code0;
    code0 = code1;
    code1 = t;
    for (var i = 0u; i < 16u; i++) {
      bc1Indices[i] ^= 1u;
    }
  } else if (code0 == code1) {
    for (var i = 0u; i < 16u; i++) {
      bc1Indices[i] = 0u;
    }
  }
  putBits(code0, 16u);
  putBits(code1, 16u);
  for (var i = 0u; i < 16u; i++) {
    putBits(bc1Indices[i], 2u);
  }
}
`;
