import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

/**
 * The packages a newcomer packs or installs from git: `npm pack` ships only `files`, and only what
 * `prepack` built. Packing a fresh clone for real is `test/package/pack-from-clone.spec.ts`
 * (`npm run test:package`); this checks the manifests in a few milliseconds.
 */
interface Manifest {
  scripts?: Record<string, string>;
  files?: string[];
  main?: string;
  types?: string;
  bin?: Record<string, string>;
  exports?: Record<string, { types?: string; import?: string }>;
}

const read = (path: string): Manifest =>
  JSON.parse(readFileSync(new URL(`../../../${path}`, import.meta.url), 'utf8'));

describe.each(['package.json', 'packages/baker/package.json', 'packages/react/package.json'])(
  '%s',
  (path) => {
    const manifest = read(path);

    it('builds before it is packed', () => {
      expect(manifest.scripts?.prepack).toMatch(/\bbuild\b/);
    });

    it('ships every file it names as an entry point', () => {
      const named = [
        manifest.main,
        manifest.types,
        ...Object.values(manifest.exports ?? {}).flatMap((e) => [e.import, e.types]),
        ...Object.values(manifest.bin ?? {}),
      ].filter((p): p is string => p !== undefined);
      expect(named.length).toBeGreaterThan(1);
      const shipped = (file: string) =>
        (manifest.files ?? []).some((f) => file.replace(/^\.\//, '').startsWith(`${f}/`));
      expect(named.filter((file) => !shipped(file))).toEqual([]);
    });
  },
);
