/**
 * An archive sink writing straight into a file (positional writes; payloads are never buffered).
 * It writes to a temporary name beside the output and renames it into place only when the bake
 * succeeded, so a failed bake leaves no file behind (and never truncates an older archive).
 */

import { closeSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { ArchiveSink } from '../sources/archive/archive-writer';

/** Writes an archive meant for `path`; call {@link commit} on success or {@link discard} on failure. */
export class FileArchiveSink implements ArchiveSink {
  /** Where bytes go until {@link commit}: same directory, so the rename is atomic. */
  readonly temporaryPath: string;
  private fd: number | null;

  constructor(readonly path: string) {
    this.temporaryPath = join(dirname(path), `.${basename(path)}.${process.pid}.partial`);
    this.fd = openSync(this.temporaryPath, 'w');
  }

  write(bytes: Uint8Array, position: number): void {
    if (this.fd === null) throw new Error(`${this.path} is already closed`);
    let written = 0;
    while (written < bytes.length) {
      written += writeSync(this.fd, bytes, written, bytes.length - written, position + written);
    }
  }

  /** Closes the file and moves it to {@link path}. */
  commit(): void {
    this.close();
    renameSync(this.temporaryPath, this.path);
  }

  /** Closes and deletes the temporary file; {@link path} is left as it was. */
  discard(): void {
    this.close();
    rmSync(this.temporaryPath, { force: true });
  }

  private close(): void {
    if (this.fd === null) return;
    closeSync(this.fd);
    this.fd = null;
  }
}
