/** Main thread -> image pyramid worker: decode one encoded image and build its mip chain. */
export interface ImagePyramidRequest {
  id: number;
  /** The encoded image (PNG, JPEG, WebP, ...), transferred. */
  bytes: ArrayBuffer;
  /** Its MIME type (for the Blob `createImageBitmap` decodes). */
  mimeType: string;
  /** Colour channels are sRGB-encoded: downsample in linear light. */
  srgb: boolean;
}

/** Image pyramid worker -> main thread: the levels (finest first, RGBA8, transferred) or why not. */
export interface ImagePyramidResponse {
  id: number;
  ok: boolean;
  error?: string;
  width: number;
  height: number;
  levels: ArrayBuffer[];
}
