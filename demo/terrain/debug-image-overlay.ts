/**
 * A small image drawn over the canvas from RGBA bytes painted on the CPU (the feedback buffer, the
 * residency map): a 2D canvas pinned to a corner of the page, pixelated when scaled up. The image
 * data is reused until the size changes.
 */
export class DebugImageOverlay {
  /** The overlay's canvas (in the document while shown). */
  readonly canvas: HTMLCanvasElement;
  private readonly context: CanvasRenderingContext2D;
  private image: ImageData | null = null;

  /**
   * @param label accessible name and `data-debug-view` of the canvas.
   * @param corner where it sits: `left` or `right` bottom corner.
   * @param displayWidth on-screen width, CSS pixels.
   */
  constructor(label: string, corner: 'left' | 'right', displayWidth: number) {
    const canvas = document.createElement('canvas');
    canvas.dataset.debugView = label;
    canvas.setAttribute('aria-label', label);
    canvas.style.cssText = `position:fixed;bottom:8px;${corner}:8px;width:${displayWidth}px;image-rendering:pixelated;border:1px solid #fff8;background:#000a;pointer-events:none;z-index:10`;
    const context = canvas.getContext('2d');
    if (!context) throw new Error('2D canvas unavailable for a debug overlay');
    this.canvas = canvas;
    this.context = context;
  }

  /** Adds or removes the overlay from the document. */
  setVisible(visible: boolean): void {
    if (visible && !this.canvas.isConnected) document.body.appendChild(this.canvas);
    else if (!visible) this.canvas.remove();
  }

  /** True while in the document. */
  get visible(): boolean {
    return this.canvas.isConnected;
  }

  /** Repaints: `paint` fills `width * height * 4` RGBA bytes, which are then shown. */
  draw(width: number, height: number, paint: (pixels: Uint8ClampedArray) => void): void {
    if (!this.image || this.image.width !== width || this.image.height !== height) {
      this.image = new ImageData(width, height);
      this.canvas.width = width;
      this.canvas.height = height;
    }
    paint(this.image.data);
    this.context.putImageData(this.image, 0, 0);
  }
}
