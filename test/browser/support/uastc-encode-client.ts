import type { UastcEncodeOptions } from '../../support/uastc-encoder';

/**
 * One rgba8 tile's UASTC blocks (16 bytes each, block rows top to bottom), encoded by the test
 * server with Basis's encoder and cached there for the run (test/browser/uastc-encode-service.ts).
 * Rejects on abort, and on any answer but 200.
 */
export async function encodeUastcBlocksOnServer(
  rgba: Uint8Array,
  width: number,
  height: number,
  options: UastcEncodeOptions,
  signal?: AbortSignal,
): Promise<Uint8Array> {
  const query = new URLSearchParams({
    width: String(width),
    height: String(height),
    srgb: options.srgb ? '1' : '0',
    normal: options.normal ? '1' : '0',
    quality: String(options.quality ?? 1),
  });
  const response = await fetch(`/__tessera/uastc-encode?${query}`, {
    method: 'POST',
    body: rgba as Uint8Array<ArrayBuffer>,
    signal,
  });
  if (!response.ok) throw new Error(`UASTC encode service: ${response.status} ${await response.text()}`);
  return new Uint8Array(await response.arrayBuffer());
}
