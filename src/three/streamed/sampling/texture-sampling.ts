import {
  LinearFilter,
  LinearMipmapLinearFilter,
  type MagnificationTextureFilter,
  type MinificationTextureFilter,
  RepeatWrapping,
  type Texture,
  Vector2,
  type Wrapping,
} from 'three';

/**
 * How every three texture bound for one streamed texture is sampled: sampler state, uv channel
 * and uv transform. The placeholder, the pinned chain and each streamed chain all carry the same
 * settings, because three r187 decides at material build time, from the texture bound then,
 * whether a texture is sampled or fetched (min and mag `NearestFilter` give an unfiltered
 * `textureLoad` with no sampler on WebGPU), and keys its render objects by these fields: a texture
 * swapped in with other settings would be drawn as the first one was, or rebuild the material.
 */
export interface TextureSampling {
  /** Wrapping along u (three's `texture.wrapS`). */
  readonly wrapS: Wrapping;
  /** Wrapping along v (three's `texture.wrapT`). */
  readonly wrapT: Wrapping;
  /** Magnification filter (three's `texture.magFilter`). */
  readonly magFilter: MagnificationTextureFilter;
  /** Minification filter (three's `texture.minFilter`). */
  readonly minFilter: MinificationTextureFilter;
  /** Anisotropy ratio (1 = off); three applies it only when every filter is linear. */
  readonly anisotropy: number;
  /** UV set read (three's `texture.channel`: 0 = `uv`, 1 = `uv1`, ...). */
  readonly channel: number;
  /** UV offset, as three's `Texture.offset`. */
  readonly offset: Vector2;
  /** UV repeat, as three's `Texture.repeat`. */
  readonly repeat: Vector2;
  /** UV rotation in radians, counter-clockwise, as three's `Texture.rotation`. */
  readonly rotation: number;
  /** Centre of the rotation in uv, as three's `Texture.center`. */
  readonly center: Vector2;
}

/** Sampling settings given when a streamed texture is created; unset fields take three's defaults for a mipmapped texture. */
export interface TextureSamplingOptions {
  /** Default RepeatWrapping. */
  wrapS?: Wrapping;
  /** Default RepeatWrapping. */
  wrapT?: Wrapping;
  /** Default LinearFilter. */
  magFilter?: MagnificationTextureFilter;
  /** Default LinearMipmapLinearFilter (trilinear). */
  minFilter?: MinificationTextureFilter;
  /** Anisotropy ratio, 1..16. Default 1. */
  anisotropy?: number;
  /** UV set read (`texture.channel`). Default 0. */
  channel?: number;
  /** UV transform, as `Texture.offset` / `repeat` / `rotation` / `center`. Default identity. */
  uvTransform?: {
    offset?: readonly [number, number];
    repeat?: readonly [number, number];
    /** Radians, counter-clockwise. */
    rotation?: number;
    center?: readonly [number, number];
  };
}

/** The full sampling of `options`, defaults filled in. */
export function textureSampling(options: TextureSamplingOptions): TextureSampling {
  const transform = options.uvTransform ?? {};
  return {
    wrapS: options.wrapS ?? RepeatWrapping,
    wrapT: options.wrapT ?? RepeatWrapping,
    magFilter: options.magFilter ?? LinearFilter,
    minFilter: options.minFilter ?? LinearMipmapLinearFilter,
    anisotropy: options.anisotropy ?? 1,
    channel: options.channel ?? 0,
    offset: new Vector2(...(transform.offset ?? [0, 0])),
    repeat: new Vector2(...(transform.repeat ?? [1, 1])),
    rotation: transform.rotation ?? 0,
    center: new Vector2(...(transform.center ?? [0, 0])),
  };
}

/** Give `texture` the sampler state, uv channel and uv transform of `sampling`. */
export function applySampling(texture: Texture, sampling: TextureSampling): void {
  texture.wrapS = sampling.wrapS;
  texture.wrapT = sampling.wrapT;
  texture.magFilter = sampling.magFilter;
  texture.minFilter = sampling.minFilter;
  texture.anisotropy = sampling.anisotropy;
  texture.channel = sampling.channel;
  texture.offset.copy(sampling.offset);
  texture.repeat.copy(sampling.repeat);
  texture.rotation = sampling.rotation;
  texture.center.copy(sampling.center);
  texture.updateMatrix();
}

/** A key equal for samplings that may share one placeholder (the uv transform lives in a per-frame uniform, so it is left out). */
export function samplingKey(sampling: TextureSampling): string {
  return `${sampling.wrapS}:${sampling.wrapT}:${sampling.magFilter}:${sampling.minFilter}:${sampling.anisotropy}:${sampling.channel}`;
}
