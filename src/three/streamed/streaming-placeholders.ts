import { DataTexture, NoColorSpace, SRGBColorSpace } from 'three';
import type { WebGPURenderer } from 'three/webgpu';
import { BudgetPriority } from '../../core/budget/budget-priority';
import type { TextureBudget } from '../../core/budget/texture-budget';
import { isSrgbFormat, type StreamedTextureFormat } from '../../core/streaming/mip-pyramid-source';

/** GPU label of the shared placeholders. */
export const PLACEHOLDER_LABEL = 'tessera:placeholder';
/** Bytes of one 1x1 rgba8 placeholder. */
export const PLACEHOLDER_BYTES = 4;

interface Placeholder {
  texture: DataTexture;
  handle: number;
}

/**
 * The 1x1 mid-grey textures bound wherever a streamed texture has nothing on the GPU yet or was
 * released: one linear and one sRGB, created on first use, their bytes reserved in the budget.
 * Materials always bind something valid, never a destroyed texture.
 */
export class StreamingPlaceholders {
  private readonly renderer: WebGPURenderer;
  private readonly budget: TextureBudget;
  /** Index 0: linear (rgba8unorm), 1: sRGB (rgba8unorm-srgb). */
  private readonly placeholders: (Placeholder | null)[] = [null, null];

  constructor(renderer: WebGPURenderer, budget: TextureBudget) {
    this.renderer = renderer;
    this.budget = budget;
  }

  /** Bytes of the placeholders created so far. */
  get bytes(): number {
    let count = 0;
    for (let i = 0; i < this.placeholders.length; i++) if (this.placeholders[i] !== null) count++;
    return count * PLACEHOLDER_BYTES;
  }

  /** The placeholder for textures of `format`, created (and its bytes reserved) on first use. */
  of(format: StreamedTextureFormat): DataTexture {
    const index = isSrgbFormat(format) ? 1 : 0;
    const existing = this.placeholders[index];
    if (existing !== null) return existing.texture;
    const handle = this.budget.reserve('other', PLACEHOLDER_BYTES, 0, BudgetPriority.pinned);
    // Mid grey: visibly "not loaded" without flashing black or white.
    const texture = new DataTexture(new Uint8Array([128, 128, 128, 255]), 1, 1);
    texture.name = PLACEHOLDER_LABEL;
    texture.colorSpace = index === 1 ? SRGBColorSpace : NoColorSpace;
    texture.needsUpdate = true;
    this.renderer.initTexture(texture);
    this.placeholders[index] = { texture, handle };
    return texture;
  }

  /** Destroy the placeholders and return their bytes; call once nothing binds them. */
  dispose(): void {
    for (let i = 0; i < this.placeholders.length; i++) {
      const placeholder = this.placeholders[i];
      if (placeholder === null) continue;
      placeholder.texture.dispose();
      this.budget.release(placeholder.handle);
      this.placeholders[i] = null;
    }
  }
}
