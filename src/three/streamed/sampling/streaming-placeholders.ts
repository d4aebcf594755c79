import { DataTexture, NoColorSpace, SRGBColorSpace } from 'three';
import type { WebGPURenderer } from 'three/webgpu';
import { BudgetPriority } from '../../../core/budget/budget-priority';
import type { TextureBudget } from '../../../core/budget/texture-budget';
import { isSrgbFormat, type StreamedTextureFormat } from '../../../core/streaming/mip-pyramid-source';
import { applySampling, samplingKey, type TextureSampling } from './texture-sampling';

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
 * released, their bytes reserved in the budget. One per colour space and {@link TextureSampling}
 * in use (created on first use, shared by every streamed texture sampled alike): a material is
 * built from the texture bound first, so the placeholder must be sampled as the texture that
 * replaces it (see `texture-sampling.ts`). Materials always bind something valid, never a
 * destroyed texture.
 */
export class StreamingPlaceholders {
  private readonly renderer: WebGPURenderer;
  private readonly budget: TextureBudget;
  /** By colour space (`s`/`l`) and sampling key; looked up when a texture is created or released, not per frame. */
  private readonly placeholders = new Map<string, Placeholder>();

  constructor(renderer: WebGPURenderer, budget: TextureBudget) {
    this.renderer = renderer;
    this.budget = budget;
  }

  /** Bytes of the placeholders created so far. */
  get bytes(): number {
    return this.placeholders.size * PLACEHOLDER_BYTES;
  }

  /** Bytes {@link of} would add for a texture of `format` sampled as `sampling` (0 when its placeholder exists). */
  bytesToAdd(format: StreamedTextureFormat, sampling: TextureSampling): number {
    return this.placeholders.has(keyOf(format, sampling)) ? 0 : PLACEHOLDER_BYTES;
  }

  /** The placeholder for textures of `format` sampled as `sampling`, created (and its bytes reserved) on first use. */
  of(format: StreamedTextureFormat, sampling: TextureSampling): DataTexture {
    const key = keyOf(format, sampling);
    const existing = this.placeholders.get(key);
    if (existing !== undefined) return existing.texture;
    const handle = this.budget.reserve('other', PLACEHOLDER_BYTES, 0, BudgetPriority.pinned);
    // Mid grey: visibly "not loaded" without flashing black or white.
    const texture = new DataTexture(new Uint8Array([128, 128, 128, 255]), 1, 1);
    texture.name = PLACEHOLDER_LABEL;
    texture.colorSpace = isSrgbFormat(format) ? SRGBColorSpace : NoColorSpace;
    applySampling(texture, sampling);
    texture.needsUpdate = true;
    this.renderer.initTexture(texture);
    this.placeholders.set(key, { texture, handle });
    return texture;
  }

  /** Destroy the placeholders and return their bytes; call once nothing binds them. */
  dispose(): void {
    for (const placeholder of this.placeholders.values()) {
      placeholder.texture.dispose();
      this.budget.release(placeholder.handle);
    }
    this.placeholders.clear();
  }
}

function keyOf(format: StreamedTextureFormat, sampling: TextureSampling): string {
  return `${isSrgbFormat(format) ? 's' : 'l'}:${samplingKey(sampling)}`;
}
