/**
 * Comparison mode (`?compare=1` or the HUD's toggle): Tessera's bytes beside what plain three.js
 * would need for the same scene (see comparison/plain-three-estimate.ts), as two bars on one scale
 * and their figures.
 */

import type { PlainThreeEstimate } from '../comparison/plain-three-estimate';
import type { SharpnessFigures } from '../comparison/sharpness-inset';

const MIB = 1024 * 1024;

/** The panel's DOM (`data-hud="comparison"`) and its update. */
export class ComparisonPanel {
  readonly element = document.createElement('div');
  private readonly tesseraBar = document.createElement('div');
  private readonly plainBar = document.createElement('div');
  private readonly tesseraLabel = document.createElement('div');
  private readonly plainLabel = document.createElement('div');
  private readonly sharpnessLabel = document.createElement('div');

  constructor() {
    this.element.dataset.hud = 'comparison';
    this.element.style.cssText =
      'position:fixed;left:8px;top:222px;width:352px;padding:4px;background:#000a;border:1px solid #fff4;font:11px system-ui,sans-serif;color:#eef;pointer-events:none;z-index:5';
    const title = document.createElement('div');
    title.textContent = 'Tessera vs plain three.js (same scene)';
    title.style.fontWeight = 'bold';
    for (const [bar, colour] of [
      [this.tesseraBar, '#4fa3ff'],
      [this.plainBar, '#ff6a50'],
    ] as const) {
      bar.style.cssText = `height:10px;background:${colour};margin:2px 0;min-width:1px`;
    }
    this.element.append(
      title,
      this.tesseraLabel,
      this.tesseraBar,
      this.plainLabel,
      this.plainBar,
      this.sharpnessLabel,
    );
  }

  /** Shows or hides the panel. */
  set visible(on: boolean) {
    this.element.style.display = on ? 'block' : 'none';
  }

  /** Redraws for Tessera's `tesseraBytes` against `plain`, and the close-up pair's `sharpness`. */
  update(
    tesseraBytes: number,
    budgetBytes: number,
    plain: PlainThreeEstimate,
    sharpness: SharpnessFigures | null,
  ): void {
    const scale = Math.max(tesseraBytes, plain.totalBytes);
    this.tesseraBar.style.width = `${(100 * tesseraBytes) / scale}%`;
    this.plainBar.style.width = `${(100 * plain.totalBytes) / scale}%`;
    this.tesseraLabel.textContent = `Tessera: ${(tesseraBytes / MIB).toFixed(1)} MiB (budget ${(budgetBytes / MIB).toFixed(0)})`;
    this.plainLabel.textContent = `plain three.js: ${(plain.totalBytes / MIB).toFixed(0)} MiB (terrain ${plain.terrainLayers} x ${plain.maxTextureDimension}² = ${(plain.terrainBytes / MIB).toFixed(0)}, props ${(plain.propBytes / MIB).toFixed(1)}) = ${(plain.totalBytes / Math.max(1, tesseraBytes)).toFixed(1)}x`;
    this.sharpnessLabel.textContent = sharpnessText(sharpness);
  }
}

/** The close-up's figures: each side's high-frequency energy, and what the stand-in costs. */
function sharpnessText(s: SharpnessFigures | null): string {
  if (!s) return 'close-up: n/a (the terrain is the stand-in texture)';
  if (s.tessera === null || s.plainThree === null) return 'close-up sharpness: capturing…';
  const ratio = s.tessera / Math.max(1e-6, s.plainThree);
  const plainSide =
    s.plainContent === 'same-content'
      ? `the same terrain in one ${s.standInEdge}² texture per layer, ${(s.standInBytes / MIB).toFixed(1)} MiB (Tessera's terrain: ${(s.tesseraTerrainBytes / MIB).toFixed(1)} MiB)`
      : `the procedural world's stand-in, one ${s.standInEdge}² texture, ${(s.standInBytes / MIB).toFixed(1)} MiB`;
  return `close-up sharpness (x${s.zoom}, mean luminance step, same frame and camera): Tessera ${s.tessera.toFixed(1)} vs plain ${s.plainThree.toFixed(1)} (${ratio.toFixed(1)}x); plain three.js draws ${plainSide}, outside the budget; inset ${(s.insetBytes / 1024).toFixed(0)} KiB in it`;
}
