import { TesseraConfigError } from '../core/errors';
import { type FilterMode, type MipRule, mipRule } from '../core/vt/feedback/mip-rule';
import { MAX_PAGES_PER_SIDE, MAX_VIRTUAL_TEXTURES, NO_REQUEST, packPageId } from '../core/vt/page-id';
import type { CameraPose } from './camera-pose';

// One double and its two 32-bit words; HIGH_WORD indexes the one holding the exponent (1 on
// little-endian hosts, i.e. practically everywhere, 0 on big-endian ones).
const SCRATCH_DOUBLE = new Float64Array(1);
const SCRATCH_WORDS = new Uint32Array(SCRATCH_DOUBLE.buffer);
const HIGH_WORD = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1 ? 1 : 0;

/** Configuration of a {@link TerrainFeedbackGenerator}. */
export interface TerrainFeedbackConfig {
  /** Virtual texture index written into the page ids (0..15). Default 0. */
  vt?: number;
  /** Width of mip 0 of the virtual texture, in pages (power of two, 1..4096). */
  widthPages: number;
  /** Height of mip 0 of the virtual texture, in pages (power of two, 1..4096). */
  heightPages: number;
  /** Tile side including its border, in texels. Default 128. */
  tileSize?: number;
  /** Border inside the tile on each side, in texels. Default 4 (so 120 payload texels). */
  border?: number;
  /** Extent of the terrain along world x (u = 0..1), in world units. */
  worldWidth: number;
  /**
   * Extent of the terrain along world z (v = 0..1), in world units. Default: square texels,
   * `worldWidth * heightPages / widthPages`.
   */
  worldDepth?: number;
  /** Screen width the frame is rendered at, in screen pixels. */
  screenWidth: number;
  /** Screen height the frame is rendered at, in screen pixels. */
  screenHeight: number;
  /** Feedback buffer width, in feedback pixels (usually screenWidth / scale). */
  feedbackWidth: number;
  /** Feedback buffer height, in feedback pixels (usually screenHeight / scale). */
  feedbackHeight: number;
  /** Largest anisotropy ratio the sampler resolves (dimensionless, >= 1). Default 8. */
  maxAnisotropy?: number;
  /**
   * The sampler's filtering, whose mip rule (src/core/vt/feedback/mip-rule.ts) picks the requested mip,
   * as the GPU pass does. Default 'anisotropic'.
   */
  filtering?: FilterMode;
}

function isPowerOfTwo(n: number): boolean {
  return Number.isInteger(n) && n > 0 && (n & (n - 1)) === 0;
}

function requirePositive(name: string, value: number): void {
  if (!(value > 0) || !Number.isFinite(value)) {
    throw new TesseraConfigError('invalid-size', `${name} must be a positive finite number, got ${value}`);
  }
}

/**
 * CPU model of the GPU feedback pass for a perspective camera over a flat terrain: one packed
 * page request per feedback pixel, written into a reused `Uint32Array` (no allocation per frame).
 *
 * ## The mip formula (the GPU pass must match it)
 * For feedback pixel (i, j) (row 0 at the top) and sub-pixel offset (jx, jy) in feedback pixels:
 * 1. NDC: `nx = 2 (i + jx) / feedbackWidth - 1`, `ny = 1 - 2 (j + jy) / feedbackHeight`.
 * 2. Ray `d = forward + nx tan(fovY/2) aspect right + ny tan(fovY/2) up`, hit on y = 0 at
 *    `P = eye - eye.y / d.y * d`; no hit (d.y >= 0) or P outside the terrain => {@link NO_REQUEST}.
 * 3. `uv = (P.x / worldWidth, P.z / worldDepth)`; texel coordinates `T = uv * (widthPages, heightPages)
 *    * payload`, where payload = tileSize - 2 border (mip-0 payload texels).
 * 4. Derivatives of T per SCREEN pixel (exact Jacobian of the ray-plane hit): `dT/dx` and `dT/dy`
 *    where one screen pixel is `2 / screenWidth` (`2 / screenHeight`) of NDC. The GPU pass renders at
 *    1/scale of the screen, so its `dpdx/dpdy` are per feedback pixel: divide them by the scale
 *    (equivalently subtract log2(scale) from lambda) to get the same figure.
 * 5. `Px = |dT/dx|`, `Py = |dT/dy|`, `Pmax = max`, `Pmin = min`; texel footprint
 *    `f = max(Pmin, Pmax / a)` with `a` the mode's anisotropy (`maxAnisotropy` for anisotropic
 *    filtering, 1 otherwise: see src/core/vt/feedback/mip-rule.ts).
 * 6. `lambda = log2(f) + mipBias`; `mip = clamp(floor(lambda + offset), 0, maxMip)` with the mode's
 *    request offset (0.5 bilinear, 1/16 trilinear and anisotropic), computed exactly from the
 *    binary exponent of `f^2 4^(mipBias + offset)`, the same integer; page
 *    `(floor(u * w_mip), floor(v * h_mip))` with `w_mip = max(1, widthPages >> mip)`.
 */
export class TerrainFeedbackGenerator {
  /** Virtual texture index written into the ids. */
  readonly vt: number;
  /** Mip-0 size, in pages. */
  readonly widthPages: number;
  /** Mip-0 size, in pages. */
  readonly heightPages: number;
  /** Payload texels per page side (tile size minus both borders). */
  readonly payloadTexels: number;
  /** Coarsest mip index: log2 of the longer side in pages (that mip is a single page). */
  readonly maxMip: number;
  /** Feedback buffer size, in feedback pixels. */
  readonly feedbackWidth: number;
  /** Feedback buffer size, in feedback pixels. */
  readonly feedbackHeight: number;
  /** Terrain extent along x, in world units. */
  readonly worldWidth: number;
  /** Terrain extent along z, in world units. */
  readonly worldDepth: number;
  /** The buffer {@link generate} writes into by default (feedbackWidth * feedbackHeight ids). */
  readonly buffer: Uint32Array;

  private readonly screenWidth: number;
  private readonly screenHeight: number;
  private readonly rule: MipRule;
  /** Mip-0 payload texels per world unit along x and z. */
  private readonly texelsPerWorldX: number;
  private readonly texelsPerWorldZ: number;
  // Scratch camera basis written by computeBasis (no allocation per frame).
  private fx = 0;
  private fy = 0;
  private fz = 0;
  private ax = 0;
  private az = 0;
  private bx = 0;
  private by = 0;
  private bz = 0;

  constructor(config: TerrainFeedbackConfig) {
    const vt = config.vt ?? 0;
    if (!Number.isInteger(vt) || vt < 0 || vt >= MAX_VIRTUAL_TEXTURES) {
      throw new TesseraConfigError('invalid-option', `vt must be an integer in 0..15, got ${vt}`);
    }
    for (const [name, value] of [
      ['widthPages', config.widthPages],
      ['heightPages', config.heightPages],
    ] as const) {
      if (!isPowerOfTwo(value)) throw new TesseraConfigError('not-power-of-two', `${name} ${value}`);
      if (value > MAX_PAGES_PER_SIDE) throw new TesseraConfigError('too-large', `${name} ${value} > 4096`);
    }
    const tileSize = config.tileSize ?? 128;
    const border = config.border ?? 4;
    if (!Number.isInteger(tileSize) || !Number.isInteger(border) || border < 0 || tileSize - 2 * border < 1) {
      throw new TesseraConfigError('invalid-tile', `tile ${tileSize} with border ${border} has no payload`);
    }
    requirePositive('worldWidth', config.worldWidth);
    const worldDepth = config.worldDepth ?? (config.worldWidth * config.heightPages) / config.widthPages;
    requirePositive('worldDepth', worldDepth);
    for (const [name, value] of [
      ['screenWidth', config.screenWidth],
      ['screenHeight', config.screenHeight],
      ['feedbackWidth', config.feedbackWidth],
      ['feedbackHeight', config.feedbackHeight],
    ] as const) {
      if (!Number.isInteger(value) || value < 1) {
        throw new TesseraConfigError('invalid-size', `${name} must be a positive integer, got ${value}`);
      }
    }
    const maxAnisotropy = config.maxAnisotropy ?? 8;
    if (!(maxAnisotropy >= 1) || !Number.isFinite(maxAnisotropy)) {
      throw new TesseraConfigError('invalid-option', `maxAnisotropy must be >= 1, got ${maxAnisotropy}`);
    }
    this.vt = vt;
    this.widthPages = config.widthPages;
    this.heightPages = config.heightPages;
    this.payloadTexels = tileSize - 2 * border;
    this.maxMip = Math.log2(Math.max(config.widthPages, config.heightPages));
    this.worldWidth = config.worldWidth;
    this.worldDepth = worldDepth;
    this.screenWidth = config.screenWidth;
    this.screenHeight = config.screenHeight;
    this.feedbackWidth = config.feedbackWidth;
    this.feedbackHeight = config.feedbackHeight;
    this.rule = mipRule(config.filtering ?? 'anisotropic', maxAnisotropy);
    this.texelsPerWorldX = (config.widthPages * this.payloadTexels) / config.worldWidth;
    this.texelsPerWorldZ = (config.heightPages * this.payloadTexels) / worldDepth;
    this.buffer = new Uint32Array(config.feedbackWidth * config.feedbackHeight);
  }

  /**
   * Writes one frame of feedback for `pose` into `out` (default {@link buffer}) and returns it.
   * @param mipBias added to lambda, in mip levels (the streamer's residency bias).
   * @param jitterX sub-pixel offset inside each feedback pixel, in feedback pixels (0..1, 0.5 = centre).
   * @param jitterY sub-pixel offset inside each feedback pixel, in feedback pixels (0..1).
   */
  generate(
    pose: CameraPose,
    mipBias = 0,
    jitterX = 0.5,
    jitterY = 0.5,
    out: Uint32Array = this.buffer,
  ): Uint32Array {
    const fw = this.feedbackWidth;
    const fh = this.feedbackHeight;
    if (out.length < fw * fh) {
      throw new TesseraConfigError('invalid-size', `feedback buffer holds ${out.length} < ${fw * fh} pixels`);
    }
    this.computeBasis(pose);
    const fx = this.fx;
    const fy = this.fy;
    const fz = this.fz;
    const ax = this.ax;
    const az = this.az;
    const bx = this.bx;
    const by = this.by;
    const bz = this.bz;
    const h = pose.y;
    const ex = pose.x;
    const ez = pose.z;
    const tpx = this.texelsPerWorldX;
    const tpz = this.texelsPerWorldZ;
    // NDC per screen pixel (sign is irrelevant: only lengths are used).
    const ndcPerPixelX = 2 / this.screenWidth;
    const ndcPerPixelY = 2 / this.screenHeight;
    const invAniso2 = 1 / (this.rule.anisotropy * this.rule.anisotropy);
    // floor(lambda + offset) with the offset folded into the bias (see the mip formula).
    const biasScale = 4 ** (mipBias + this.rule.requestOffset);
    const scratch = SCRATCH_DOUBLE;
    const words = SCRATCH_WORDS;
    const high = HIGH_WORD;
    const maxMip = this.maxMip;
    const wp = this.widthPages;
    const hp = this.heightPages;
    const vtBits = (this.vt << 28) >>> 0;
    const invW = 1 / this.worldWidth;
    const invD = 1 / this.worldDepth;
    let index = 0;
    for (let j = 0; j < fh; j++) {
      const ny = 1 - (2 * (j + jitterY)) / fh;
      const rowX = fx + ny * bx;
      const rowY = fy + ny * by;
      const rowZ = fz + ny * bz;
      for (let i = 0; i < fw; i++, index++) {
        const nx = (2 * (i + jitterX)) / fw - 1;
        const dx = rowX + nx * ax;
        const dy = rowY; // a.y = 0: the camera never rolls
        const dz = rowZ + nx * az;
        if (!(h > 0) || dy >= -1e-9) {
          out[index] = NO_REQUEST;
          continue;
        }
        const t = -h / dy;
        const u = (ex + t * dx) * invW;
        const v = (ez + t * dz) * invD;
        if (!(u >= 0 && u < 1 && v >= 0 && v < 1)) {
          out[index] = NO_REQUEST;
          continue;
        }
        // dP/dn = -h (a d.y - d a.y) / d.y^2 ; with a.y = 0: -h a / d.y.
        const k = -h / (dy * dy);
        const sx = k * ndcPerPixelX;
        const dTudx = sx * (ax * dy) * tpx;
        const dTvdx = sx * (az * dy) * tpz;
        const sy2 = k * ndcPerPixelY;
        const dTudy = sy2 * (bx * dy - dx * by) * tpx;
        const dTvdy = sy2 * (bz * dy - dz * by) * tpz;
        // Squared lengths: log2(f) = log2(f^2) / 2 saves both square roots.
        const px2 = dTudx * dTudx + dTvdx * dTvdx;
        const py2 = dTudy * dTudy + dTvdy * dTvdy;
        // floor(log2(f) + bias) = floor(floor(log2(f^2 4^bias)) / 2): the inner floor is the
        // binary exponent of a double, read from its bits instead of calling Math.log2.
        scratch[0] = Math.max(Math.min(px2, py2), Math.max(px2, py2) * invAniso2) * biasScale;
        let mip = (((words[high] >>> 20) & 0x7ff) - 1023) >> 1;
        // A zero or subnormal footprint reads as a hugely negative exponent, Infinity as 1024.
        if (mip < 0) mip = 0;
        else if (mip > maxMip) mip = maxMip;
        const wm = wp >> mip || 1;
        const hm = hp >> mip || 1;
        const x = (u * wm) | 0;
        const y = (v * hm) | 0;
        out[index] = (vtBits | (mip << 24) | (y << 12) | x) >>> 0;
      }
    }
    return out;
  }

  /**
   * Lambda (continuous mip before floor and clamp, bias included) at NDC (`nx`, `ny`) in mip
   * levels, or NaN where the ray misses the terrain. Same formula as {@link generate}; for tests
   * and for comparing with the GPU pass.
   */
  lambdaAt(pose: CameraPose, nx: number, ny: number, mipBias = 0): number {
    this.computeBasis(pose);
    const dx = this.fx + nx * this.ax + ny * this.bx;
    const dy = this.fy + ny * this.by;
    const dz = this.fz + nx * this.az + ny * this.bz;
    const h = pose.y;
    if (!(h > 0) || dy >= -1e-9) return Number.NaN;
    const u = (pose.x - (h / dy) * dx) / this.worldWidth;
    const v = (pose.z - (h / dy) * dz) / this.worldDepth;
    if (!(u >= 0 && u < 1 && v >= 0 && v < 1)) return Number.NaN;
    const k = -h / (dy * dy);
    const kx = (k * 2) / this.screenWidth;
    const ky = (k * 2) / this.screenHeight;
    const px = Math.hypot(kx * this.ax * dy * this.texelsPerWorldX, kx * this.az * dy * this.texelsPerWorldZ);
    const py = Math.hypot(
      ky * (this.bx * dy - dx * this.by) * this.texelsPerWorldX,
      ky * (this.bz * dy - dz * this.by) * this.texelsPerWorldZ,
    );
    return Math.log2(Math.max(Math.min(px, py), Math.max(px, py) / this.rule.anisotropy)) + mipBias;
  }

  /** Packs a page address for this generator's virtual texture. */
  pageId(mip: number, x: number, y: number): number {
    return packPageId(this.vt, mip, x, y);
  }

  /**
   * Camera basis into scratch fields: forward f, and the ray's change per unit of NDC x (a = right
   * * tan(fovY/2) * aspect, a.y = 0 because the camera never rolls) and NDC y (b = up * tan(fovY/2)).
   */
  private computeBasis(pose: CameraPose): void {
    const cp = Math.cos(pose.pitch);
    const cy = Math.cos(pose.yaw);
    const sy = Math.sin(pose.yaw);
    const fx = sy * cp;
    const fy = Math.sin(pose.pitch);
    const fz = cy * cp;
    // right = forward x worldUp, normalised: (-cos yaw, 0, sin yaw).
    const rx = -cy;
    const rz = sy;
    // up = right x forward.
    const ux = -rz * fy;
    const uy = rz * fx - rx * fz;
    const uz = rx * fy;
    const tanY = Math.tan(pose.fovY / 2);
    const tanX = tanY * pose.aspect;
    this.fx = fx;
    this.fy = fy;
    this.fz = fz;
    this.ax = rx * tanX;
    this.az = rz * tanX;
    this.bx = ux * tanY;
    this.by = uy * tanY;
    this.bz = uz * tanY;
  }
}
