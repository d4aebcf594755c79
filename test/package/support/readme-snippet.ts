/**
 * Pulls a code block out of a Markdown document, so tests run the README's code literally as a
 * new user would copy it.
 */

/**
 * Returns the body of the first fenced code block in `language` under the heading whose text is
 * exactly `heading` (e.g. `## Add a virtual texture to your scene`), up to the next heading of the
 * same or a higher level; with `containing`, the first such block whose body contains that text.
 * A fence indented inside a list item counts too, its indentation removed from the body. Throws an
 * error naming what is missing.
 */
export function extractCodeBlock(
  markdown: string,
  heading: string,
  language = 'ts',
  containing?: string,
): string {
  const level = /^#+/.exec(heading)?.[0].length;
  if (level === undefined) throw new Error(`'${heading}' is not a Markdown heading`);
  const lines = markdown.split(/\r?\n/);
  const start = lines.findIndex((line) => line.trimEnd() === heading);
  if (start < 0) throw new Error(`README has no heading '${heading}'`);
  let fence: string | undefined;
  let indent = '';
  let body: string[] = [];
  for (let i = start + 1; i < lines.length; i++) {
    const line = lines[i];
    if (fence === undefined) {
      const heading = /^(#+)\s/.exec(line);
      if (heading && heading[1].length <= level) break;
      const open = /^( *)(`{3,}|~{3,})\s*([\w-]+)?/.exec(line);
      if (open && open[3] === language) {
        indent = open[1];
        fence = open[2];
        body = [];
      } else if (open) {
        // Skips a block in another language, fence and all.
        const close = lines.findIndex((l, k) => k > i && l.trim() === open[2]);
        i = close < 0 ? lines.length : close;
      }
      continue;
    }
    if (line.trim() === fence && line.startsWith(indent)) {
      const text = `${body.join('\n')}\n`;
      if (containing === undefined || text.includes(containing)) return text;
      fence = undefined;
      continue;
    }
    body.push(line.startsWith(indent) ? line.slice(indent.length) : line.trimStart());
  }
  const which = containing === undefined ? '' : ` containing '${containing}'`;
  if (fence !== undefined) throw new Error(`the \`\`\`${language} block under '${heading}' is not closed`);
  throw new Error(`README has no \`\`\`${language} block${which} under '${heading}'`);
}
