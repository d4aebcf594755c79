/**
 * A photograph-like test image: smooth sky and ground gradients, soft-edged shapes and sensor-like
 * noise, rendered with sharp from an SVG and saved as JPEG. Deterministic for a given size.
 */

import sharp from 'sharp';

function sceneSvg(width: number, height: number): string {
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">
  <defs>
    <linearGradient id="sky" x1="0" y1="0" x2="0" y2="1">
      <stop offset="0" stop-color="#2b5fa8"/><stop offset="0.55" stop-color="#9cc3e6"/>
      <stop offset="0.56" stop-color="#5b7a3a"/><stop offset="1" stop-color="#2f3f1c"/>
    </linearGradient>
    <radialGradient id="sun" cx="0.5" cy="0.5" r="0.5">
      <stop offset="0" stop-color="#fff6d0"/><stop offset="1" stop-color="#fff6d0" stop-opacity="0"/>
    </radialGradient>
    <filter id="soft"><feGaussianBlur stdDeviation="${width / 400}"/></filter>
  </defs>
  <rect width="100%" height="100%" fill="url(#sky)"/>
  <circle cx="${width * 0.78}" cy="${height * 0.2}" r="${height * 0.18}" fill="url(#sun)"/>
  <g filter="url(#soft)">
    <path d="M0 ${height * 0.58} L${width * 0.2} ${height * 0.32} L${width * 0.38} ${height * 0.56} L${width * 0.55} ${height * 0.38} L${width * 0.8} ${height * 0.6} Z" fill="#4a5566"/>
    <ellipse cx="${width * 0.3}" cy="${height * 0.8}" rx="${width * 0.12}" ry="${height * 0.06}" fill="#6b4a2b"/>
    <rect x="${width * 0.6}" y="${height * 0.62}" width="${width * 0.14}" height="${height * 0.22}" rx="12" fill="#b83a2e"/>
    <circle cx="${width * 0.12}" cy="${height * 0.7}" r="${height * 0.07}" fill="#e0c341"/>
  </g>
  <text x="${width * 0.05}" y="${height * 0.12}" font-size="${height / 12}" font-family="sans-serif" fill="#ffffff">TESSERA ↑</text>
</svg>`;
}

/** Writes a `width x height` photograph-like JPEG (quality 92) to `path`. */
export async function writePhotoLikeJpeg(path: string, width = 2048, height = 1024): Promise<void> {
  const { data } = await sharp(Buffer.from(sceneSvg(width, height)))
    .removeAlpha()
    .raw()
    .toBuffer({ resolveWithObject: true });
  // Seeded noise of a few levels, as a camera sensor adds: lossy coding cannot smooth it away.
  let state = 12345;
  for (let i = 0; i < data.length; i++) {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    data[i] = Math.max(0, Math.min(255, data[i] + ((state >>> 24) % 9) - 4));
  }
  await sharp(data, { raw: { width, height, channels: 3 } })
    .jpeg({ quality: 92 })
    .toFile(path);
}
