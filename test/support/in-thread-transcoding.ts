import type { Ktx2File } from '../../src/sources/bake/ktx2-texture-decoder';
import type { TranscodeWorker } from '../../src/three/transcode/basis-transcoder-pool';
import { TranscodeJobRunner } from '../../src/three/transcode/transcode-job-runner';
import type { TranscodeRequest, TranscodeResponse } from '../../src/three/transcode/transcode-messages';
import type { BasisTranscoderModule } from '../../src/three/transcode/uastc-transcode';

/**
 * The real transcoder behind the pool's message protocol, answering on a later task (one runner:
 * ETC1S codebooks stay cached as in a worker).
 */
export class InThreadTranscodeWorker implements TranscodeWorker {
  onmessage: ((event: MessageEvent<TranscodeResponse>) => void) | null = null;
  onerror: ((event: ErrorEvent) => void) | null = null;
  /** Jobs answered so far (init messages excluded). */
  jobs = 0;
  /** The job logic, exposed so tests can inspect its codebook cache. */
  readonly runner: TranscodeJobRunner;

  constructor(basis: BasisTranscoderModule) {
    this.runner = new TranscodeJobRunner(basis);
  }

  postMessage(message: TranscodeRequest): void {
    setTimeout(() => {
      if (message.type === 'init') return;
      this.jobs++;
      const { id, input, output } = message;
      const error = this.runner.run(message);
      this.onmessage?.({
        data: { type: 'result', id, ok: error === undefined, error, input, output },
      } as MessageEvent<TranscodeResponse>);
    }, 0);
  }

  terminate(): void {}
}

/**
 * three's KTX2Loader path: the whole `file` through the transcoder's KTX2File, one `level` to the
 * Basis transcoder format `format`. Throws unless the file is valid, of `payload`, and transcodes.
 */
export function wholeFileTranscode(
  basis: BasisTranscoderModule,
  file: Uint8Array,
  level: number,
  format: number,
  payload: 'uastc' | 'etc1s',
): Uint8Array {
  const ctor = (basis as unknown as { KTX2File: new (data: Uint8Array) => Ktx2File }).KTX2File;
  const ktx2 = new ctor(file);
  try {
    const ofPayload = payload === 'uastc' ? ktx2.isUASTC() : ktx2.isETC1S();
    if (!ktx2.isValid() || !ofPayload) throw new Error(`not a valid ${payload} KTX2 file`);
    if (!ktx2.startTranscoding()) throw new Error('startTranscoding failed');
    const dst = new Uint8Array(ktx2.getImageTranscodedSizeInBytes(level, 0, 0, format));
    if (!ktx2.transcodeImage(dst, level, 0, 0, format, 0, -1, -1)) throw new Error(`level ${level} failed`);
    return dst;
  } finally {
    ktx2.close();
    ktx2.delete();
  }
}
