import type { BackendBridge } from './backend-bridge';

/**
 * Notices that the GPU behind a renderer is gone: WebGPU's `device.lost` (any reason, including an
 * app's `device.destroy()`, which three r187 ignores) or WebGL2's `webglcontextlost`. three r187
 * recovers neither by itself (its renderer stays lost: a WebGL2 restore is not listened to), so an
 * app recovers by creating a new renderer and handing it to `VirtualTextureSystem.recover`.
 */
export class DeviceLossWatch {
  private isLost = false;
  private readonly canvas: HTMLCanvasElement | null;
  private readonly onContextLost = (): void => {
    this.isLost = true;
  };

  constructor(private readonly bridge: BackendBridge) {
    if (bridge.device !== null) {
      this.canvas = null;
      bridge.device.lost.then(() => {
        this.isLost = true;
      });
    } else {
      this.canvas = bridge.renderer.domElement;
      this.canvas.addEventListener('webglcontextlost', this.onContextLost, false);
    }
  }

  /** True once the device or context was lost (also when the loss event has not arrived yet). */
  get lost(): boolean {
    if (!this.isLost && this.bridge.gl !== null && this.bridge.gl.isContextLost()) this.isLost = true;
    return this.isLost;
  }

  /** Stops listening. */
  dispose(): void {
    this.canvas?.removeEventListener('webglcontextlost', this.onContextLost, false);
  }
}
