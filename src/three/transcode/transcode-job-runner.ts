import type { UastcTarget } from '../../core/vt/residency/pool-format';
import {
  createEtc1sTranscoder,
  type Etc1sImageTranscoder,
  etc1sBasisFormatOf,
  transcodeEtc1sLevel,
} from './etc1s-transcode';
import type { TranscodeEtc1sJobMessage, TranscodeJobMessage } from './transcode-messages';
import {
  type BasisTranscoderModule,
  basisFormatOf,
  transcodeUastcImage,
  transcodeUastcTile,
} from './uastc-transcode';

/** Decoded ETC1S codebooks kept per worker; the oldest is freed past this many files. */
const MAX_CODEBOOKS = 32;

/**
 * Runs transcode jobs on one loaded transcoder: what a transcode worker does with each message,
 * pure over the module so Node tests run the same code with the same wasm. Keeps the transcoder's
 * format integers and each ETC1S file's decoded codebooks (decoded on the first level of a file).
 */
export class TranscodeJobRunner {
  private readonly formats = new Map<UastcTarget, number>();
  private readonly codebooks = new Map<number, Etc1sImageTranscoder>();

  constructor(private readonly module: BasisTranscoderModule) {}

  /** Transcodes `job.input` into `job.output`. @returns undefined on success, else why it failed. */
  run(job: TranscodeJobMessage | TranscodeEtc1sJobMessage): string | undefined {
    if (job.type === 'etc1s') return this.runEtc1s(job);
    const { target, tileSize, width, height, hasAlpha, yInAlpha } = job;
    let format = this.formats.get(target);
    if (format === undefined) {
      format = basisFormatOf(this.module, target);
      this.formats.set(target, format);
    }
    const blocks = new Uint8Array(job.input);
    const out = new Uint8Array(job.output);
    const ok =
      tileSize > 0
        ? transcodeUastcTile(this.module, format, target, blocks, out, tileSize, hasAlpha, yInAlpha)
        : transcodeUastcImage(this.module, format, target, blocks, out, width, height, hasAlpha);
    return ok ? undefined : 'the transcoder rejected the UASTC blocks';
  }

  /** Files whose codebooks are decoded here now. */
  get codebookCount(): number {
    return this.codebooks.size;
  }

  private runEtc1s(job: TranscodeEtc1sJobMessage): string | undefined {
    let transcoder = this.codebooks.get(job.codebookId);
    if (transcoder === undefined) {
      const created = createEtc1sTranscoder(this.module, job.codebooks);
      if (created === null) return 'the transcoder rejected the BasisLZ codebooks';
      transcoder = created;
      this.codebooks.set(job.codebookId, transcoder);
      if (this.codebooks.size > MAX_CODEBOOKS) {
        const [oldest, old] = this.codebooks.entries().next().value as [number, Etc1sImageTranscoder];
        this.codebooks.delete(oldest);
        old.delete();
      }
    }
    const ok = transcodeEtc1sLevel(
      transcoder,
      etc1sBasisFormatOf(this.module, job.target),
      job.target,
      new Uint8Array(job.input),
      job.slices,
      job.level,
      job.width,
      job.height,
      new Uint8Array(job.output),
    );
    return ok ? undefined : 'the transcoder rejected the ETC1S slices';
  }
}
