import { resolve } from 'node:path';

/** The package's entries and the source file each resolves to in this repository. */
const ENTRIES = {
  '': 'src/index.ts',
  '/core': 'src/core/index.ts',
  '/three': 'src/three/index.ts',
  '/sources': 'src/sources/index.ts',
  '/sim': 'src/sim/index.ts',
  '/imagery': 'src/sources/imagery/index.ts',
} as const;

/** The React Three Fiber bindings (`packages/react`, a package of their own) and their source. */
const REACT_BINDINGS_ENTRY = 'packages/react/src/index.ts';

/**
 * Vite / Vitest aliases that resolve `@tessera-vt/tessera` and its entries, and
 * `@tessera-vt/react`, to the sources, so the demo, the examples and the tests import the packages
 * by name, as an application does, without a build (tsconfig.json's `paths` say the same to the
 * type checker).
 */
export function packageSourceAliases(): { find: RegExp; replacement: string }[] {
  return [
    ...Object.entries(ENTRIES).map(([entry, file]) => ({
      find: new RegExp(`^@tessera-vt/tessera${entry}$`),
      replacement: resolve(import.meta.dirname, file),
    })),
    { find: /^@tessera-vt\/react$/, replacement: resolve(import.meta.dirname, REACT_BINDINGS_ENTRY) },
  ];
}
