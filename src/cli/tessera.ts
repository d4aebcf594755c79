/**
 * `tessera` command line of @tessera-vt/baker: `tessera bake ...` (an image or the procedural world into an archive,
 * or one shard of it), `tessera merge ...` (shards into the archive) and `tessera gltf ...` (a glTF's
 * textures into KTX2 files Tessera streams). Usage: {@link USAGE}.
 */

import { BAKE_USAGE, bakeCommand } from './bake-command';
import { GLTF_USAGE, gltfCommand } from './gltf-command';
import { MERGE_USAGE, mergeCommand } from './merge-command';

const USAGE = `usage:\n${BAKE_USAGE}\n${MERGE_USAGE}\n${GLTF_USAGE}`;

/** Runs the CLI with `argv` (without node and script); returns the exit code. */
export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (command === '-h' || command === '--help' || rest.includes('-h') || rest.includes('--help')) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  try {
    if (command === 'bake') return await bakeCommand(rest, USAGE);
    if (command === 'merge') return await mergeCommand(rest, USAGE);
    if (command === 'gltf') return await gltfCommand(rest, USAGE);
  } catch (error) {
    // parseArgs refuses unknown flags and missing values with a plain error: a usage error.
    if ((error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      process.stderr.write(`tessera: ${(error as Error).message}\n${USAGE}\n`);
      return 2;
    }
    throw error;
  }
  process.stderr.write(`${USAGE}\n`);
  return 2;
}
