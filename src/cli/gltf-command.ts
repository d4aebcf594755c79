/** `tessera gltf`: a glTF's PNG, JPEG and WebP textures into KTX2 files Tessera streams by HTTP Range. */

import { parseArgs } from 'node:util';
import { bakeGltfFile } from '../sources/bake/bake-gltf-file';
import { GltfBakeError, type GltfTextureReport } from '../sources/bake/gltf-textures';

export const GLTF_USAGE = `  tessera gltf <in.gltf|in.glb> -o <out.glb|out.gltf> [--color uastc|etc1s] [--keep-ktx2|--recompress-ktx2]
               [--zstd <level>] [--rdo <lambda>] [--uastc-effort 0..4] [--etc1s-quality 1..255] [--no-prefix]
  makes a glTF streamable: every PNG, JPEG and WebP texture becomes a KTX2 file beside the output
  (<out>-<texture>.ktx2, KHR_texture_basisu) with all its mips, which Tessera reads by HTTP Range,
  coarsest first. The start of each KTX2 file (its metadata and levels of at most 64 texels, a few
  KiB) also goes into the glTF's binary buffer (TESSERA_texture_prefix, optional), so the coarse
  levels of all textures arrive with the glTF in one request (--no-prefix leaves them out). Normal maps and data textures are UASTC + Zstandard; colour is --color (default
  uastc; etc1s is several times smaller and lossier). KTX2 textures are kept as they are
  (--keep-ktx2, the default) or decoded and re-encoded (--recompress-ktx2: rgba8, UASTC or ETC1S;
  Basis files need three installed, for its transcoder). Samplers, texCoord, KHR_texture_transform
  and other extensions are kept. Prints the sizes before and after. A failed run leaves no output file.`;

/** Runs `tessera gltf` with its arguments; returns the exit code. */
export async function gltfCommand(argv: string[], usage: string): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      output: { type: 'string', short: 'o' },
      color: { type: 'string', default: 'uastc' },
      'keep-ktx2': { type: 'boolean', default: false },
      'recompress-ktx2': { type: 'boolean', default: false },
      zstd: { type: 'string' },
      rdo: { type: 'string' },
      'uastc-effort': { type: 'string' },
      'etc1s-quality': { type: 'string' },
      'no-prefix': { type: 'boolean', default: false },
    },
  });
  const [input, extra] = positionals;
  if (!values.output || input === undefined || extra !== undefined) {
    process.stderr.write(`${usage}\n`);
    return 2;
  }
  if (values.color !== 'uastc' && values.color !== 'etc1s') {
    process.stderr.write(`tessera: --color ${values.color}: uastc or etc1s\n${usage}\n`);
    return 2;
  }
  if (values['keep-ktx2'] && values['recompress-ktx2']) {
    process.stderr.write(`tessera: --keep-ktx2 and --recompress-ktx2 exclude each other\n${usage}\n`);
    return 2;
  }
  const number = (flag: string | undefined) => (flag === undefined ? undefined : Number(flag));
  const started = performance.now();
  try {
    const result = await bakeGltfFile(input, values.output, {
      color: values.color,
      recompressKtx2: values['recompress-ktx2'],
      zstdLevel: number(values.zstd),
      rdoLambda: number(values.rdo),
      uastcEffort: number(values['uastc-effort']),
      etc1sQuality: number(values['etc1s-quality']),
      prefix: !values['no-prefix'],
    });
    process.stdout.write(formatReport(result.textures));
    for (const texture of result.textures) {
      if (texture.problem === null) continue;
      process.stderr.write(
        `tessera: warning: texture '${texture.name}' was kept as it is, but Tessera cannot stream it ` +
          `(${texture.problem}); --recompress-ktx2 re-encodes it\n`,
      );
    }
    for (const name of result.droppedExtensions) {
      process.stderr.write(`tessera: warning: ${name} is unknown to glTF-Transform and was left out\n`);
    }
    const seconds = (performance.now() - started) / 1000;
    process.stdout.write(
      `wrote ${values.output} and ${result.files.length - 1} files beside it: ` +
        `${mib(result.bytesBefore)} -> ${mib(result.bytesAfter)} in all, in ${seconds.toFixed(1)} s\n`,
    );
    return 0;
  } catch (error) {
    if (error instanceof GltfBakeError) {
      process.stderr.write(`tessera: ${error.code}: ${error.message}\n`);
      return 1;
    }
    throw error;
  }
}

/**
 * One line per texture (name, what it is, codec, size, bytes before and after, bytes of its start
 * carried in the glTF's buffer), then the totals.
 */
function formatReport(textures: readonly GltfTextureReport[]): string {
  const rows = textures.map((t) => [
    t.name,
    t.content,
    t.action === 'kept' ? 'kept (ktx2)' : t.codec,
    t.width === 0 ? '' : `${t.width}x${t.height}`,
    `${t.mimeTypeBefore.replace('image/', '')} ${kib(t.bytesBefore)}`,
    kib(t.bytesAfter),
    `${((100 * t.bytesAfter) / t.bytesBefore).toFixed(0)}%`,
    kib(t.prefixBytes),
  ]);
  const before = textures.reduce((sum, t) => sum + t.bytesBefore, 0);
  const after = textures.reduce((sum, t) => sum + t.bytesAfter, 0);
  const inGltf = textures.reduce((sum, t) => sum + t.prefixBytes, 0);
  rows.push([
    `${textures.length} textures`,
    '',
    '',
    '',
    kib(before),
    kib(after),
    before === 0 ? '' : `${((100 * after) / before).toFixed(0)}%`,
    kib(inGltf),
  ]);
  // "in glTF": the file's start (metadata and coarse levels) also in the glTF's buffer.
  const header = ['texture', 'content', 'codec', 'size', 'before', 'after', '', 'in glTF'];
  const widths = header.map((h, c) => Math.max(h.length, ...rows.map((r) => r[c].length)));
  const line = (r: string[]) =>
    `${r
      .map((cell, c) => cell.padEnd(widths[c]))
      .join('  ')
      .trimEnd()}\n`;
  return [header, ...rows].map(line).join('');
}

function kib(bytes: number): string {
  return `${(bytes / 1024).toFixed(1)} KiB`;
}

function mib(bytes: number): string {
  return `${(bytes / 2 ** 20).toFixed(2)} MiB`;
}
