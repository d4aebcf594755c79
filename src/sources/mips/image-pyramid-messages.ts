/** Main thread -> image pyramid worker: decode one encoded image and build its mip chain. */
export interface ImagePyramidRequest {
  /** Job id, echoed in the response. */
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
  /** The request's job id. */
  id: number;
  /** Whether the image was decoded; else `error` says why and `levels` is empty. */
  ok: boolean;
  /** Why the image could not be decoded (when `ok` is false). */
  error?: string;
  /** Width of the finest level, in texels. */
  width: number;
  /** Height of the finest level, in texels. */
  height: number;
  /** The levels, finest first, RGBA8 rows top down (transferred). */
  levels: ArrayBuffer[];
}
