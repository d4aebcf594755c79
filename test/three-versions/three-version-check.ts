import { REVISION } from 'three';
import { REVISION as WEBGPU_REVISION } from 'three/webgpu';

// Setup file of vitest.config.ts: a test file that got the installed three instead of the copy
// under test would pass for the wrong reason, so it fails here instead.
const expected = process.env.TESSERA_EXPECTED_THREE?.split('.')[1];
if (REVISION !== expected || WEBGPU_REVISION !== expected)
  throw new Error(`three r${REVISION} (three/webgpu r${WEBGPU_REVISION}) loaded, expected r${expected}`);
