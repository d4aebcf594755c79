/**
 * `tessera` command line. `tessera bake <image> -o <file> [--tile 128] [--border 4]
 * [--layer normal=<image> ...] [--encoding png|webp|jpeg|deflate|raw] [--quality 90]` or
 * `tessera bake --procedural <seed> --size <texels> -o <file>`.
 */

import { parseArgs } from 'node:util';
import { type PayloadEncodingName, SUPPORTED_ENCODINGS } from '../sources/archive/archive-format';
import { bakeProcedural, nextPowerOfTwo } from '../sources/bake/bake-archive';
import { type BakeFileLayer, bakeImageFiles } from '../sources/bake/bake-out-of-core';
import { FileArchiveSink } from './file-archive-sink';
import { ProgressBar } from './progress-bar';

const USAGE = `usage:
  tessera bake <image> -o <file> [--tile 128] [--border 4] [--layer normal=<image> ...]
               [--encoding png|webp|jpeg|deflate|raw] [--quality 90] [--linear]
  tessera bake --procedural <seed> --size <texels> -o <file> [--tile 128] [--border 4] [--encoding ...]`;

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
  const encoding = values.encoding as PayloadEncodingName;
  if (!SUPPORTED_ENCODINGS.includes(encoding)) {
    process.stderr.write(`unknown encoding ${encoding}\n${USAGE}\n`);
    return 2;
  }
  const options = {
    tileSize: Number(values.tile),
    border: Number(values.border),
    encoding,
    quality: Number(values.quality),
  };
  const progress = new ProgressBar('bake', 'tiles');
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
        layers.push({
          name: spec.slice(0, at),
          colorSpace: 'linear',
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
