import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { extractCodeBlock } from '../../package/support/readme-snippet';

const DOC = [
  '# Title',
  '## Add a virtual texture to your scene',
  'Some text.',
  '```sh',
  'npm i tessera',
  '```',
  '```ts',
  "import { a } from '@tessera-vt/tessera';",
  '',
  'a();',
  '```',
  '```ts',
  'second();',
  '```',
  '## Next',
  '```ts',
  'other();',
  '```',
].join('\n');

describe('extractCodeBlock', () => {
  it('returns the first block in the language under the heading, verbatim', () => {
    expect(extractCodeBlock(DOC, '## Add a virtual texture to your scene')).toBe(
      "import { a } from '@tessera-vt/tessera';\n\na();\n",
    );
  });

  it('stops at the next heading of the same level and names what is missing', () => {
    const doc = DOC.replace(/```ts\n[^`]*```\n```ts\nsecond\(\);\n```\n/, '');
    expect(() => extractCodeBlock(doc, '## Add a virtual texture to your scene')).toThrow(
      "README has no ```ts block under '## Add a virtual texture to your scene'",
    );
    expect(() => extractCodeBlock(DOC, '## Missing')).toThrow("README has no heading '## Missing'");
    expect(() => extractCodeBlock('## H\n```ts\nopen();', '## H')).toThrow('is not closed');
  });

  it('finds a block indented in a list item by its content, indentation removed', () => {
    const doc = [
      '## H',
      '```ts',
      'first();',
      '```',
      '- **Item**: text',
      '',
      '  ```ts',
      '  if (x) {',
      '    wanted();',
      '',
      '  }',
      '  ```',
    ].join('\n');
    expect(extractCodeBlock(doc, '## H', 'ts', 'wanted')).toBe('if (x) {\n  wanted();\n\n}\n');
    expect(() => extractCodeBlock(doc, '## H', 'ts', 'absent')).toThrow("containing 'absent'");
  });

  it('finds the glTF block in the guide the README links to, whole: it defines what it uses and swaps the scenes', () => {
    const guide = readFileSync(new URL('../../../docs/streamed-textures.md', import.meta.url), 'utf8');
    expect(readFileSync(new URL('../../../README.md', import.meta.url), 'utf8')).toContain(
      '(docs/streamed-textures.md)',
    );
    const code = extractCodeBlock(guide, '## glTF scenes', 'ts', 'registerGltfTextureStreaming(');
    for (const declared of ['renderer', 'scene', 'camera', 'streaming', 'castle', 'harbour'])
      expect(code).toMatch(new RegExp(`const ${declared} = `));
    expect(code).toMatch(/scene\.add\(harbour\.scene\)/);
    expect(code).toMatch(/scene\.remove\(castle\.scene\)/);
  });

  it('finds the block in the repository README', () => {
    const readme = readFileSync(new URL('../../../README.md', import.meta.url), 'utf8');
    expect(extractCodeBlock(readme, '## Add a virtual texture to your scene')).toMatch(
      /from '@tessera-vt\/tessera'/,
    );
  });
});
