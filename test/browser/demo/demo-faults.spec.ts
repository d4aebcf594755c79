/**
 * The demo behind a flaky and then a dead server (issue #35): every asset (the terrain archive of
 * `?source=archive`, the region scenes' `.glb` and their KTX2 textures) comes through the test
 * server's fault injection (`?assets=/__faults/...`, fault-injection-service.ts). With one request
 * in twenty failing (5xx, resets, truncated bodies, a Range answered 200, a wrong Content-Range)
 * the retries lose no page, no texture level and no transition, and `demo.stats()` counts them.
 * Once the server goes down, a transition rejects with a typed retryable error after its bounded
 * attempts, the old region staying; each failed page and level is reported once; the demo keeps
 * rendering. The faults are in the network, not in the backend: WebGPU in `npm test`, WebGL2 in
 * `npm run test:extended`.
 */

import type { Page } from '@playwright/test';
import { type ErrorLog, EXTENDED, expect, test } from '../fixtures';
import {
  DEMO_PAGE,
  demoReady,
  demoStats,
  isolateFromDevServerReloads,
  renderFrames,
  screenshotCanvas,
  settle,
  teleport,
} from './demo-page';

const FAULTS = '503,500,reset,truncated,range-ignored,bad-range';

/** What Chromium logs for each failed request (the injected faults), and nothing else. */
const INJECTED =
  /^console\.error: Failed to load resource: (the server responded with a status of (500|503)|net::ERR_)/;

/** Drains the error log until a quiet half second; returns the entries `allowed` does not match. */
async function unexpectedErrors(errorLog: ErrorLog, allowed: RegExp[]): Promise<string[]> {
  const left: string[] = [];
  for (let quiet = 0; quiet < 2; ) {
    const batch = await errorLog.take();
    left.push(...batch.filter((e) => !allowed.some((a) => a.test(e))));
    quiet = batch.length === 0 ? quiet + 1 : 0;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  return left;
}

interface Rejection {
  name: string;
  code: string | null;
  retryable: boolean | null;
  message: string;
}

/** `demo.transition(name)`, its rejection returned as a plain object (null when it resolved). */
function tryTransition(page: Page, name: string): Promise<Rejection | null> {
  return page.evaluate(async (n) => {
    try {
      await window.demo.transition(n);
      return null;
    } catch (error) {
      const e = error as Error & { code?: string; retryable?: boolean };
      return { name: e.name, code: e.code ?? null, retryable: e.retryable ?? null, message: e.message };
    }
  }, name);
}

for (const only of ['webgpu', 'webgl'] as const) {
  test(
    `demo: 5% network faults lose no page, level or transition (retries counted); a dead server rejects transitions once each, typed retryable, the old region rendering on (${only})`,
    only === 'webgl' ? { tag: EXTENDED } : {},
    async ({ page, backend, openPage, errorLog, request }) => {
      test.skip(backend !== only, `the ${only} run`);
      test.setTimeout(180_000);
      // Not the backend's name: the error log takes warnings naming WebGPU or WebGL for GPU problems.
      const seed = `demo-${only === 'webgpu' ? 'a' : 'b'}-${Date.now()}`;
      const t0 = Date.now();
      const phases: Record<string, number> = {};
      const mark = (name: string) => {
        phases[name] = Date.now() - t0;
      };
      await isolateFromDevServerReloads(page);
      await openPage(DEMO_PAGE, {
        auto: 0,
        size: '256x144',
        hud: 0,
        budget: 48,
        source: 'archive',
        assets: `/__faults/${FAULTS}/0.05/${seed}/assets/`,
      });
      await demoReady(page);
      mark('ready');
      expect((await demoStats(page)).scene).toBe('valley');

      // Flaky server: transitions and teleports.
      const poses = [
        { x: -600, z: 300, height: 120, yaw: 0.4, pitch: -0.35 },
        { x: 900, z: -700, height: 60, yaw: 2.2, pitch: -0.3 },
      ];
      const rejected: (Rejection | null)[] = [];
      for (const [i, name] of ['desert', 'snowfield', 'valley'].entries()) {
        rejected.push(await tryTransition(page, name));
        mark(`transition ${name}`);
        if (i >= poses.length) break;
        await teleport(page, poses[i]);
        const settled = await settle(page, 80);
        mark(`settle ${i} ${JSON.stringify(settled)}`);
      }
      expect(rejected).toEqual([null, null, null]);
      const flaky = await demoStats(page);
      const injected = (await (await request.get('/__faults/stats')).json()) as {
        injected: Record<string, number>;
      };
      // (The server's counts span every test using it, the other backend's dead phase included.)
      console.log(
        `demo faults (${only}), 5%: ${JSON.stringify({
          transitions: flaky.transitions,
          failedPages: flaky.vt.failedPages,
          failedLevels: flaky.streamed.failedLevels,
          vtRetries: flaky.vt.retries,
          streamedRetries: flaky.streamed.retries,
          injected: injected.injected,
        })}`,
      );
      expect(flaky.scene).toBe('valley');
      expect(flaky.transitions).toMatchObject({ completed: 4, rejected: 0 });
      expect(flaky.vt.failedPages).toBe(0);
      expect(flaky.streamed.failedLevels).toBe(0);
      expect(flaky.vt.retries + flaky.streamed.retries).toBeGreaterThan(0);
      expect(flaky.errors).toEqual([]);
      expect(await unexpectedErrors(errorLog, [INJECTED])).toEqual([]);

      // The server goes down: transitions reject, typed and retryable, after their bounded attempts.
      await request.get(`/__faults/kill/${seed}`);
      const dead = [await tryTransition(page, 'desert'), await tryTransition(page, 'snowfield')];
      mark('dead transitions');
      for (const rejection of dead) {
        expect(rejection).toMatchObject({ name: 'TileSourceError', code: 'http-status', retryable: true });
      }
      // New ground while down: its pages (and any finer prop level) fail, each reported once.
      await teleport(page, { x: 1800, z: 1600, height: 90, yaw: 0.9, pitch: -0.3 });
      // Until the new ground's loads have failed (no settle: failed pages are retried after their
      // cool-down, and the view keeps asking for finer pages whose parents failed).
      let down = await demoStats(page);
      for (let frames = 0, before = -1; frames < 60; frames += 10) {
        if (down.vt.failedPages > 0 && (down.vt.pending === 0 || down.vt.failedPages === before)) break;
        before = down.vt.failedPages;
        await renderFrames(page, 10);
        down = await demoStats(page);
      }
      mark(`dead frames ${down.frame}`);
      const pageErrors = down.errors.filter((e) => e.startsWith('tile-failed-permanently'));
      const levelErrors = down.errors.filter((e) => e.includes('texture-load-failed'));
      console.log(
        `demo faults (${only}), dead: ${JSON.stringify({
          transitions: down.transitions,
          rejections: dead.map((r) => r?.message),
          failedPages: down.vt.failedPages,
          pageErrors: pageErrors.length,
          failedLevels: down.streamed.failedLevels,
          levelErrors: levelErrors.length,
        })}`,
      );
      expect(down.scene).toBe('valley');
      expect(down.transitions).toMatchObject({ completed: 4, rejected: 2 });
      // Two more attempts per transition, then the rejection.
      expect(down.transitions.retries).toBe(4);
      expect(down.vt.failedPages).toBeGreaterThan(0);
      expect(pageErrors.length).toBe(down.vt.failedPages);
      expect(new Set(pageErrors).size).toBe(pageErrors.length);
      expect(levelErrors.length).toBe(down.streamed.failedLevels);
      expect(down.errors.length).toBe(pageErrors.length + levelErrors.length);
      // The old region still renders (its props and the resident terrain).
      const view = await screenshotCanvas(page, `test-results/demo/faults-dead-${only}.png`);
      expect(view.distinctColours).toBeGreaterThan(50);
      expect(view.stddev).toBeGreaterThan(4);
      expect(await unexpectedErrors(errorLog, [INJECTED, /^console\.error: demo: /])).toEqual([]);

      // Back up: the next transition goes through.
      await request.get(`/__faults/revive/${seed}`);
      expect(await tryTransition(page, 'desert')).toBeNull();
      expect((await demoStats(page)).scene).toBe('desert');
      mark('revived');
      console.log(`demo faults (${only}) phases, ms: ${JSON.stringify(phases)}`);
      expect(await unexpectedErrors(errorLog, [INJECTED, /^console\.error: demo: /])).toEqual([]);
    },
  );
}
