type Page = import('@playwright/test').Page;

/** One answered request: file, bytes, whether by Range, and the page's phase and frame then. */
export interface Served {
  file: string;
  bytes: number;
  range: boolean;
  phase: string;
  afterFrame: number;
}

/**
 * Serves `files` at /gltf-files/<name>, answering Range (206) like a static host, logging every
 * answer with the phase and frame the page last reported through `markFrame(phase, frame)`.
 */
export async function serveFiles(page: Page, files: Record<string, Uint8Array>): Promise<Served[]> {
  const served: Served[] = [];
  let phase = 'load';
  let frame = 0;
  await page.exposeFunction('markFrame', (p: string, f: number) => {
    phase = p;
    frame = f;
  });
  await page.route('**/gltf-files/*', async (route) => {
    const name = new URL(route.request().url()).pathname.split('/').pop() as string;
    const file = files[name];
    if (file === undefined) return route.fulfill({ status: 404 });
    const match = /^bytes=(\d+)-(\d+)$/.exec(route.request().headers().range ?? '');
    if (match === null) {
      served.push({ file: name, bytes: file.length, range: false, phase, afterFrame: frame });
      return route.fulfill({ status: 200, body: Buffer.from(file) });
    }
    const start = Number(match[1]);
    const end = Math.min(Number(match[2]), file.length - 1);
    served.push({ file: name, bytes: end - start + 1, range: true, phase, afterFrame: frame });
    return route.fulfill({
      status: 206,
      body: Buffer.from(file.subarray(start, end + 1)),
      headers: {
        'content-range': `bytes ${start}-${end}/${file.length}`,
        'access-control-expose-headers': 'content-range',
      },
    });
  });
  return served;
}
