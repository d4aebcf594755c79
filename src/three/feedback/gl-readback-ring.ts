import type { Texture } from 'three';
import type { BackendBridge } from '../backend-bridge';

/** {@link GLReadbackRing.poll}: the read is still running. */
export const GL_READBACK_PENDING = 0;
/** {@link GLReadbackRing.poll}: the read completed; {@link GLReadbackRing.read} may copy it. */
export const GL_READBACK_READY = 1;
/** {@link GLReadbackRing.poll}: the read failed (or none was started); the slot is free again. */
export const GL_READBACK_FAILED = -1;

/**
 * WebGL2 side of the feedback readback: a ring of pixel-pack buffers, each filled by `readPixels`
 * from the feedback texture and fenced, polled without blocking and copied into the caller's
 * array. three's `readRenderTargetPixelsAsync` creates a framebuffer, a buffer and a typed array
 * per call and polls its fence once per animation frame; here the framebuffer and buffers are
 * created once per size and reused, and the fence is polled whenever the caller asks (every
 * frame). The only per-readback object is the fence WebGL2 hands out.
 */
export class GLReadbackRing {
  private readonly bridge: BackendBridge;
  private readonly gl: WebGL2RenderingContext;
  private readonly buffers: (WebGLBuffer | null)[];
  private readonly bufferBytes: Int32Array;
  private readonly fences: (WebGLSync | null)[];
  private framebuffer: WebGLFramebuffer | null = null;

  /** @param slots readbacks that can be in flight at once. */
  constructor(bridge: BackendBridge, slots: number) {
    this.bridge = bridge;
    this.gl = bridge.gl!;
    this.buffers = new Array(slots).fill(null);
    this.bufferBytes = new Int32Array(slots);
    this.fences = new Array(slots).fill(null);
  }

  /** Bytes of the pixel-pack buffers allocated now. */
  get bytes(): number {
    let total = 0;
    for (let i = 0; i < this.bufferBytes.length; i++) total += this.bufferBytes[i];
    return total;
  }

  /**
   * Queues a read of the `width x height` RGBA8 level 0 of `texture` into slot `slot` (idle) and
   * fences it. Returns false when three has not created the texture yet.
   */
  start(slot: number, texture: Texture, width: number, height: number): boolean {
    const gl = this.gl;
    const glTexture = this.bridge.glTexture(texture);
    if (glTexture === undefined) return false;
    const bytes = width * height * 4;
    if (this.buffers[slot] === null) this.buffers[slot] = gl.createBuffer();
    gl.bindBuffer(gl.PIXEL_PACK_BUFFER, this.buffers[slot]);
    if (this.bufferBytes[slot] !== bytes) {
      // Not a READ usage: Chromium shadows READ buffers for readback and warns ("written, then
      // fenced, but written again before being read back") every time one is reused; reads here
      // only happen after the fence signalled, so the shadow buys nothing.
      gl.bufferData(gl.PIXEL_PACK_BUFFER, bytes, gl.STREAM_COPY);
      this.bufferBytes[slot] = bytes;
    }
    if (this.framebuffer === null) this.framebuffer = gl.createFramebuffer();
    // Through three's state cache, so its view of the read framebuffer stays true.
    this.bridge.bindReadFramebuffer(this.framebuffer);
    gl.framebufferTexture2D(gl.READ_FRAMEBUFFER, gl.COLOR_ATTACHMENT0, gl.TEXTURE_2D, glTexture, 0);
    this.bridge.setPackAlignment(4);
    gl.readPixels(0, 0, width, height, gl.RGBA, gl.UNSIGNED_BYTE, 0);
    gl.bindBuffer(gl.PIXEL_PACK_BUFFER, null);
    this.bridge.bindReadFramebuffer(null);
    this.fences[slot] = gl.fenceSync(gl.SYNC_GPU_COMMANDS_COMPLETE, 0);
    gl.flush();
    return true;
  }

  /** Whether slot `slot`'s read has completed, without waiting. */
  poll(slot: number): number {
    const fence = this.fences[slot];
    if (fence === null) return GL_READBACK_FAILED;
    const gl = this.gl;
    const status = gl.clientWaitSync(fence, 0, 0);
    if (status === gl.TIMEOUT_EXPIRED) return GL_READBACK_PENDING;
    gl.deleteSync(fence);
    this.fences[slot] = null;
    return status === gl.WAIT_FAILED ? GL_READBACK_FAILED : GL_READBACK_READY;
  }

  /** Copies slot `slot`'s completed read into `target` (its byte length at most the read's). */
  read(slot: number, target: Uint8Array): void {
    const gl = this.gl;
    gl.bindBuffer(gl.PIXEL_PACK_BUFFER, this.buffers[slot]);
    gl.getBufferSubData(gl.PIXEL_PACK_BUFFER, 0, target);
    gl.bindBuffer(gl.PIXEL_PACK_BUFFER, null);
  }

  /** Deletes every buffer, fence and the framebuffer. */
  dispose(): void {
    const gl = this.gl;
    for (let i = 0; i < this.buffers.length; i++) {
      if (this.fences[i] !== null) gl.deleteSync(this.fences[i]);
      if (this.buffers[i] !== null) gl.deleteBuffer(this.buffers[i]);
      this.fences[i] = null;
      this.buffers[i] = null;
      this.bufferBytes[i] = 0;
    }
    if (this.framebuffer !== null) gl.deleteFramebuffer(this.framebuffer);
    this.framebuffer = null;
  }
}
