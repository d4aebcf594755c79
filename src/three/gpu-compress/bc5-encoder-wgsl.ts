/**
 * BC5 encoder of one block (WGSL, uses the kernel prelude's `texels`, `putBits`): red and green
 * each as a BC4 block in its eight-value mode (endpoint 0 = the channel's maximum, endpoint 1 =
 * its minimum), 3-bit indices chosen against the decoded values. Blue and alpha are not stored.
 */
export const BC5_ENCODER_WGSL = /* wgsl */ `
fn encodeBc4Channel(channel: u32) {
  var lo = 255.0;
  var hi = 0.0;
  for (var i = 0u; i < 16u; i++) {
    lo = min(lo, texels[i][channel]);
    hi = max(hi, texels[i][channel]);
  }
  putBits(u32(hi), 8u);
  putBits(u32(lo), 8u);
  for (var i = 0u; i < 16u; i++) {
    var bestIndex = 0u;
    if (hi > lo) {
      var bestError = 1e30;
      for (var k = 0u; k < 8u; k++) {
        // Index 0 is endpoint 0, 1 is endpoint 1, 2..7 the six values between them.
        var value = hi;
        if (k == 1u) {
          value = lo;
        } else if (k > 1u) {
          value = (f32(8u - k) * hi + f32(k - 1u) * lo) / 7.0;
        }
        let error = abs(value - texels[i][channel]);
        if (error < bestError) {
          bestError = error;
          bestIndex = k;
        }
      }
    }
    putBits(bestIndex, 3u);
  }
}

fn encodeBc5() {
  encodeBc4Channel(0u);
  encodeBc4Channel(1u);
}
`;
