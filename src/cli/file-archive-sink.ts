/** An archive sink writing straight into a file (positional writes; payloads are never buffered). */

import { closeSync, openSync, writeSync } from 'node:fs';
import type { ArchiveSink } from '../sources/archive/archive-writer';

/** Writes an archive to `path` (truncating it). Call {@link close} when done. */
export class FileArchiveSink implements ArchiveSink {
  private readonly fd: number;

  constructor(path: string) {
    this.fd = openSync(path, 'w');
  }

  write(bytes: Uint8Array, position: number): void {
    let written = 0;
    while (written < bytes.length)
      written += writeSync(this.fd, bytes, written, bytes.length - written, position + written);
  }

  close(): void {
    closeSync(this.fd);
  }
}
