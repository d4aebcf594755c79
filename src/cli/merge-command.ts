/** `tessera merge shard... -o out.tsva`: joins one bake's shard files into its archive. */

import { parseArgs } from 'node:util';
import { mergeShards } from '../sources/bake/merge-shards';
import { FileArchiveSink } from './file-archive-sink';

export const MERGE_USAGE = `  tessera merge <shard> <shard> ... -o <file>
  joins the shard files of one bake (all n of them, any order) into the archive a direct bake writes.`;

/** Runs `tessera merge` with its arguments; returns the exit code. */
export async function mergeCommand(argv: string[], usage: string): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { output: { type: 'string', short: 'o' } },
  });
  if (!values.output || positionals.length === 0) {
    process.stderr.write(`${usage}\n`);
    return 2;
  }
  const sink = new FileArchiveSink(values.output);
  try {
    const { header, length } = mergeShards(positionals, sink);
    sink.commit();
    process.stderr.write(
      `wrote ${values.output}: ${positionals.length} shards, ${header.widthPages}x${header.heightPages} pages, ` +
        `${(length / 2 ** 20).toFixed(2)} MiB\n`,
    );
    return 0;
  } catch (error) {
    sink.discard();
    process.stderr.write(`tessera: ${(error as Error).message}\n`);
    return 1;
  }
}
