import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');

/** Where the generated photograph and its archive live (served by the test server), repo-relative. */
export const PHOTO_DIR = 'test-results/readme-photo';

/**
 * A photograph-like image, `width x height` PNG: sky and ground gradients, soft and hard-edged
 * shapes, fine text and per-texel noise (detail at every scale, unlike the analytic test content),
 * made with sharp from an SVG plus seeded noise. Deterministic.
 * @param grain `channel` (default): independent noise per channel and texel (the worst case for
 *   block formats, whose blocks hold colours on a line); `luminance`: one noise value per texel
 *   added to all channels, as a camera's luminance grain looks.
 */
export async function makePhotograph(
  path: string,
  width: number,
  height: number,
  grain: 'channel' | 'luminance' = 'channel',
): Promise<void> {
  const { default: sharp } = await import('sharp');
  const shapes: string[] = [];
  let seed = 12345;
  const random = () => {
    seed = (seed * 1103515245 + 12345) >>> 0;
    return seed / 2 ** 32;
  };
  for (let i = 0; i < 60; i++) {
    const x = random() * width;
    const y = random() * height;
    const r = 4 + random() * height * 0.08;
    const hue = Math.floor(random() * 360);
    const blur = random() < 0.5 ? ' filter="url(#soft)"' : '';
    shapes.push(`<circle cx="${x}" cy="${y}" r="${r}" fill="hsl(${hue},60%,50%)" opacity="0.8"${blur}/>`);
  }
  for (let i = 0; i < 12; i++) {
    shapes.push(
      `<text x="${random() * width * 0.8}" y="${random() * height}" font-size="${10 + random() * 40}" fill="#fff" font-family="sans-serif">Tessera ${i}</text>`,
    );
  }
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">
    <defs>
      <linearGradient id="sky" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="#1d4e89"/><stop offset="1" stop-color="#f0c27b"/></linearGradient>
      <linearGradient id="ground" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="#2e5e1e"/><stop offset="1" stop-color="#6b4f2a"/></linearGradient>
      <filter id="soft"><feGaussianBlur stdDeviation="6"/></filter>
    </defs>
    <rect width="${width}" height="${height * 0.55}" fill="url(#sky)"/>
    <rect y="${height * 0.55}" width="${width}" height="${height * 0.45}" fill="url(#ground)"/>
    ${shapes.join('\n')}
  </svg>`;
  const { data, info } = await sharp(Buffer.from(svg))
    .removeAlpha()
    .raw()
    .toBuffer({ resolveWithObject: true });
  let noise = 0;
  for (let i = 0; i < data.length; i++) {
    if (grain === 'channel' || i % 3 === 0) noise = Math.floor((random() - 0.5) * 24);
    data[i] = Math.max(0, Math.min(255, data[i] + noise));
  }
  mkdirSync(dirname(path), { recursive: true });
  await sharp(data, { raw: { width: info.width, height: info.height, channels: 3 } })
    .png()
    .toFile(path);
}

/**
 * The README's first steps on a generated photograph: `tessera bake photo.png -o photo.tsva` (the
 * CLI's defaults, or `bakeArgs` appended, e.g. `['--encoding', 'uastc', '--zstd', '19']`), once per
 * run and per set of arguments. Returns the URLs of the image and its archive.
 */
export async function bakedPhotograph(
  width = 2048,
  height = 1024,
  bakeArgs: readonly string[] = [],
): Promise<{ image: string; archive: string }> {
  const name = `photo-${width}x${height}`;
  const archiveName =
    bakeArgs.length === 0 ? name : `${name}${bakeArgs.join('').replace(/[^a-z0-9]+/gi, '-')}`;
  const image = join(root, PHOTO_DIR, `${name}.png`);
  const archive = join(root, PHOTO_DIR, `${archiveName}.tsva`);
  if (!existsSync(archive)) {
    if (!existsSync(image)) await makePhotograph(image, width, height);
    execFileSync(
      process.execPath,
      [join(root, 'packages/baker/bin/tessera.mjs'), 'bake', image, '-o', archive, ...bakeArgs],
      {
        cwd: root,
        stdio: 'pipe',
      },
    );
  }
  return { image: `/${PHOTO_DIR}/${name}.png`, archive: `/${PHOTO_DIR}/${archiveName}.tsva` };
}
