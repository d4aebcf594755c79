/** CRC-32 (IEEE 802.3, as in PNG and zip), table driven. */

const TABLE = (() => {
  const t = new Int32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c;
  }
  return t;
})();

/** Continues a CRC-32 over `bytes[start, end)`; start a fresh one with `crc = 0`. Returns an unsigned 32-bit value. */
export function crc32(bytes: Uint8Array, start = 0, end = bytes.length, crc = 0): number {
  let c = ~crc;
  for (let i = start; i < end; i++) c = TABLE[(c ^ bytes[i]) & 0xff] ^ (c >>> 8);
  return ~c >>> 0;
}
