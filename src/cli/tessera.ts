/**
 * `tessera` command line. `tessera bake <image> -o <file> [--tile 128] [--border 4]
 * [--layer normal=<image> ...] [--encoding png|webp|jpeg|deflate|raw|uastc] [--quality 90]
 * [--rdo <lambda>] [--zstd <level>] [--uastc-effort 1]` or
 * `tessera bake --procedural <seed> --size <texels> -o <file>`.
 */

import { parseArgs } from 'node:util';
import { type PayloadEncodingName, SUPPORTED_ENCODINGS } from '../sources/archive/archive-format';
import { bakeLayers, bakeProcedural, nextPowerOfTwo } from '../sources/bake/bake-archive';
import { type BakeFileLayer, bakeImageFiles } from '../sources/bake/bake-out-of-core';
import { FileArchiveSink } from './file-archive-sink';
import { ProgressBar } from './progress-bar';

const USAGE = `usage:
  tessera bake <image> -o <file> [--tile 128] [--border 4] [--layer normal=<image> ...]
               [--encoding png|webp|jpeg|deflate|raw|uastc] [--quality 90] [--linear]
               [--rdo <lambda>] [--zstd <level>] [--uastc-effort 0..4]
  tessera bake --procedural <seed> --size <texels> -o <file> [--tile 128] [--border 4] [--encoding ...]
  --encoding uastc writes Basis UASTC 4x4 blocks (tile and border multiples of 4); --zstd <level>
  (1..22) compresses each tile with Zstandard, --rdo <lambda> (0..10) lets Basis trade quality for
  a smaller --zstd output; a layer named 'normal' is encoded as a normal map.`;

/** The CLI's encoding names: the archive's, with 'uastc' + --zstd spelled as the flag. */
const CLI_ENCODINGS: readonly string[] = SUPPORTED_ENCODINGS.filter((e) => e !== 'uastc-zstd');

/** Runs the CLI with `argv` (without node and script); returns the exit code. */
export async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      output: { type: 'string', short: 'o' },
      tile: { type: 'string', default: '128' },
      border: { type: 'string', default: '4' },
      layer: { type: 'string', multiple: true, default: [] },
      encoding: { type: 'string', default: 'png' },
      quality: { type: 'string', default: '90' },
      rdo: { type: 'string' },
      zstd: { type: 'string' },
      'uastc-effort': { type: 'string' },
      procedural: { type: 'string' },
      size: { type: 'string', default: '16384' },
      linear: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h' },
    },
  });
  const [command, input] = positionals;
  if (
    values.help ||
    command !== 'bake' ||
    !values.output ||
    (input === undefined) === (values.procedural === undefined)
  ) {
    process.stderr.write(`${USAGE}\n`);
    return values.help ? 0 : 2;
  }
  if (!CLI_ENCODINGS.includes(values.encoding)) {
    process.stderr.write(`unknown encoding ${values.encoding}\n${USAGE}\n`);
    return 2;
  }
  const uastcFlags =
    values.rdo !== undefined || values.zstd !== undefined || values['uastc-effort'] !== undefined;
  if (uastcFlags && values.encoding !== 'uastc') {
    process.stderr.write(`--rdo, --zstd and --uastc-effort need --encoding uastc\n${USAGE}\n`);
    return 2;
  }
  const encoding: PayloadEncodingName =
    values.encoding === 'uastc' && values.zstd !== undefined
      ? 'uastc-zstd'
      : (values.encoding as PayloadEncodingName);
  const options = {
    tileSize: Number(values.tile),
    border: Number(values.border),
    encoding,
    quality: Number(values.quality),
    rdoLambda: values.rdo === undefined ? undefined : Number(values.rdo),
    zstdLevel: values.zstd === undefined ? undefined : Number(values.zstd),
    uastcEffort: values['uastc-effort'] === undefined ? undefined : Number(values['uastc-effort']),
  };
  const progress = new ProgressBar('bake', 'tiles');
  // Options are checked before the output file is created, so a refused bake leaves nothing behind.
  try {
    bakeLayers([], options.tileSize, options.border, options);
  } catch (error) {
    process.stderr.write(`tessera: ${(error as Error).message}\n`);
    return 2;
  }
  const sink = new FileArchiveSink(values.output);
  const started = performance.now();
  try {
    let result: Awaited<ReturnType<typeof bakeProcedural>>;
    if (values.procedural !== undefined) {
      const payload = options.tileSize - 2 * options.border;
      const pages = Math.min(4096, nextPowerOfTwo(Math.round(Number(values.size) / payload)));
      result = await bakeProcedural(
        Number(values.procedural),
        pages,
        { ...options, onProgress: (d, t) => progress.update(d, t) },
        sink,
      );
    } else {
      const layers: BakeFileLayer[] = [
        { name: 'albedo', colorSpace: values.linear ? 'linear' : 'srgb', path: input! },
      ];
      for (const spec of values.layer as string[]) {
        const at = spec.indexOf('=');
        if (at < 1) throw new Error(`--layer wants name=<image>, got '${spec}'`);
        // Normal, height and similar data layers are linear; only the first (colour) layer is sRGB.
        const name = spec.slice(0, at);
        layers.push({
          name,
          colorSpace: 'linear',
          usage: name === 'normal' ? 'normal' : 'color',
          path: spec.slice(at + 1),
        });
      }
      result = await bakeImageFiles(
        layers,
        { ...options, onProgress: (d, t) => progress.update(d, t) },
        sink,
      );
    }
    const { header, length } = result;
    const seconds = (performance.now() - started) / 1000;
    process.stderr.write(
      `wrote ${values.output}: ${header.widthPages}x${header.heightPages} pages of ${header.tileSize}² (border ${header.border}), ` +
        `${header.mipCount} mips, ${header.layers.length} layers, ${(length / 2 ** 20).toFixed(2)} MiB in ${seconds.toFixed(1)} s\n`,
    );
    return 0;
  } catch (error) {
    process.stderr.write(`tessera: ${(error as Error).message}\n`);
    return 1;
  } finally {
    sink.close();
  }
}
