/** `tessera bake`: one image (plus layers) or the procedural world into an archive or a shard file. */

import { availableParallelism } from 'node:os';
import { parseArgs } from 'node:util';
import { parseShardSpec, type ShardSpec } from '../sources/archive/archive-shard';
import { type BakeOptions, bakeLayers, bakeProcedural, nextPowerOfTwo } from '../sources/bake/bake-archive';
import { type BakeFileLayer, bakeImageFiles } from '../sources/bake/bake-out-of-core';
import { type PayloadEncodingName, SUPPORTED_ENCODINGS } from '../sources/io/payload-encoding';
import { FileArchiveSink } from './file-archive-sink';
import { ProgressBar } from './progress-bar';

export const BAKE_USAGE = `  tessera bake <image> -o <file> [--tile 128] [--border 4] [--layer normal=<image> ...]
               [--encoding png|webp|jpeg|deflate|raw|uastc] [--quality 90] [--linear]
               [--rdo <lambda>] [--zstd <level>] [--uastc-effort 0..4]
               [--workers <n>] [--shard <i>/<n>]
  tessera bake --procedural <seed> --size <texels> -o <file> [--tile 128] [--border 4] [--encoding ...]
  --encoding uastc writes Basis UASTC 4x4 blocks (tile and border multiples of 4); --zstd <level>
  (1..22) compresses each tile with Zstandard, --rdo <lambda> (0..10) lets Basis trade quality for
  a smaller --zstd output; a layer named 'normal' is encoded as a normal map.
  --workers <n> (1..64, default: the cores) encode on n processes; the output does not depend on n.
  --shard <i>/<n> (0 <= i < n) writes shard i of n (page rows of every mip) for tessera merge.
  A failed bake leaves no output file.`;

/** The CLI's encoding names: the archive's, with 'uastc' + --zstd spelled as the flag. */
const CLI_ENCODINGS: readonly string[] = SUPPORTED_ENCODINGS.filter((e) => e !== 'uastc-zstd');

/** Runs `tessera bake` with its arguments; returns the exit code. */
export async function bakeCommand(argv: string[], usage: string): Promise<number> {
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
      workers: { type: 'string' },
      shard: { type: 'string' },
    },
  });
  const [input, extra] = positionals;
  if (!values.output || extra !== undefined || (input === undefined) === (values.procedural === undefined)) {
    process.stderr.write(`${usage}\n`);
    return 2;
  }
  if (!CLI_ENCODINGS.includes(values.encoding)) {
    process.stderr.write(`unknown encoding ${values.encoding}\n${usage}\n`);
    return 2;
  }
  const uastcFlags =
    values.rdo !== undefined || values.zstd !== undefined || values['uastc-effort'] !== undefined;
  if (uastcFlags && values.encoding !== 'uastc') {
    process.stderr.write(`--rdo, --zstd and --uastc-effort need --encoding uastc\n${usage}\n`);
    return 2;
  }
  const encoding: PayloadEncodingName =
    values.encoding === 'uastc' && values.zstd !== undefined
      ? 'uastc-zstd'
      : (values.encoding as PayloadEncodingName);
  const progress = new ProgressBar(values.shard === undefined ? 'bake' : `bake ${values.shard}`, 'tiles');
  let options: BakeOptions;
  const layers: BakeFileLayer[] = [];
  // Options are checked before the output file is created or any input decoded.
  try {
    let shard: ShardSpec | undefined;
    if (values.shard !== undefined) shard = parseShardSpec(values.shard);
    options = {
      tileSize: Number(values.tile),
      border: Number(values.border),
      encoding,
      quality: Number(values.quality),
      rdoLambda: values.rdo === undefined ? undefined : Number(values.rdo),
      zstdLevel: values.zstd === undefined ? undefined : Number(values.zstd),
      uastcEffort: values['uastc-effort'] === undefined ? undefined : Number(values['uastc-effort']),
      workers: values.workers === undefined ? availableParallelism() : Number(values.workers),
      shard,
      onProgress: (d, t) => progress.update(d, t),
    };
    bakeLayers([], options.tileSize ?? 128, options.border ?? 4, options);
    if (input !== undefined) {
      layers.push({ name: 'albedo', colorSpace: values.linear ? 'linear' : 'srgb', path: input });
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
    }
  } catch (error) {
    process.stderr.write(`tessera: ${(error as Error).message}\n`);
    return 2;
  }
  const sink = new FileArchiveSink(values.output);
  const started = performance.now();
  try {
    let result: Awaited<ReturnType<typeof bakeProcedural>>;
    if (values.procedural !== undefined) {
      const payload = (options.tileSize ?? 128) - 2 * (options.border ?? 4);
      const pages = Math.min(4096, nextPowerOfTwo(Math.round(Number(values.size) / payload)));
      result = await bakeProcedural(Number(values.procedural), pages, options, sink);
    } else {
      result = await bakeImageFiles(layers, options, sink);
    }
    sink.commit();
    const { header, length } = result;
    const seconds = (performance.now() - started) / 1000;
    process.stderr.write(
      `wrote ${values.output}${values.shard === undefined ? '' : ` (shard ${values.shard})`}: ` +
        `${header.widthPages}x${header.heightPages} pages of ${header.tileSize}² (border ${header.border}), ` +
        `${header.mipCount} mips, ${header.layers.length} layers, ${(length / 2 ** 20).toFixed(2)} MiB ` +
        `in ${seconds.toFixed(1)} s on ${options.workers} workers\n`,
    );
    return 0;
  } catch (error) {
    sink.discard();
    process.stderr.write(`tessera: ${(error as Error).message}\n`);
    return 1;
  }
}
