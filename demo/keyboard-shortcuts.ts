/** Keys that are not flying: 1/2/3 pick a region, N the next one, T starts or stops the tour. */

import type { DemoApp } from './app';
import { REGION_NAMES } from './regions';

/** Listens for the demo's shortcut keys (ignored while typing in a HUD field). */
export function installKeyboardShortcuts(app: DemoApp): void {
  addEventListener('keydown', (event) => {
    if (event.target instanceof HTMLInputElement || event.target instanceof HTMLSelectElement) return;
    const digit = /^Digit([1-9])$/.exec(event.code);
    if (digit && Number(digit[1]) <= REGION_NAMES.length) {
      app.changeRegion(REGION_NAMES[Number(digit[1]) - 1]);
    } else if (event.code === 'KeyN') {
      const current = REGION_NAMES.indexOf(app.regions.active?.name ?? REGION_NAMES[0]);
      app.changeRegion(REGION_NAMES[(current + 1) % REGION_NAMES.length]);
    } else if (event.code === 'KeyT') {
      if (app.tour.playing) app.tour.stop();
      else app.tour.start();
    }
  });
}
