type Page = import('@playwright/test').Page;

/** A texture view bound in a bind group, with the sampler three declares just before it (binding - 1), if any. */
export interface BoundTexture {
  label: string;
  sampler: Record<string, unknown> | null;
}

/**
 * An init script (`page.addInitScript(recordBoundTextures)`): records, on WebGPU, each texture view every bind group binds: its texture's label (three labels
 * a GPU texture with `texture.name`) and the descriptor of the sampler three's WGSL builder
 * declares at the binding before it (a texture sampled without one is fetched unfiltered), and
 * counts render pipelines (`__pipelineCounts`).
 */
export function recordBoundTextures(): void {
  const proto = (globalThis as unknown as { GPUDevice?: { prototype: Record<string, unknown> } }).GPUDevice
    ?.prototype;
  const textureProto = (globalThis as unknown as { GPUTexture?: { prototype: Record<string, unknown> } })
    .GPUTexture?.prototype;
  if (proto === undefined || textureProto === undefined) return;
  const samplers = new WeakMap<object, Record<string, unknown>>();
  const views = new WeakMap<object, string>();
  const bound: BoundTexture[] = [];
  (globalThis as { __boundTextures?: unknown }).__boundTextures = bound;
  // Render pipelines created so far: a material rebuilt at a texture swap shows as new ones.
  const counts = { renderPipelines: 0 };
  (globalThis as { __pipelineCounts?: unknown }).__pipelineCounts = counts;
  for (const name of ['createRenderPipeline', 'createRenderPipelineAsync']) {
    const create = proto[name] as (d: unknown) => unknown;
    proto[name] = function (this: unknown, descriptor: unknown) {
      counts.renderPipelines++;
      return create.call(this, descriptor);
    };
  }
  const createSampler = proto.createSampler as (d?: Record<string, unknown>) => object;
  proto.createSampler = function (this: unknown, descriptor?: Record<string, unknown>) {
    const sampler = createSampler.call(this, descriptor);
    const d = descriptor ?? {};
    samplers.set(sampler, {
      addressModeU: d.addressModeU ?? 'clamp-to-edge',
      addressModeV: d.addressModeV ?? 'clamp-to-edge',
      magFilter: d.magFilter ?? 'nearest',
      minFilter: d.minFilter ?? 'nearest',
      mipmapFilter: d.mipmapFilter ?? 'nearest',
      maxAnisotropy: d.maxAnisotropy ?? 1,
    });
    return sampler;
  };
  const createView = textureProto.createView as (d?: unknown) => object;
  textureProto.createView = function (this: { label: string }, descriptor?: unknown) {
    const view = createView.call(this, descriptor);
    views.set(view, this.label);
    return view;
  };
  type Entry = { binding: number; resource: object };
  const createBindGroup = proto.createBindGroup as (d: { entries: Entry[] }) => object;
  proto.createBindGroup = function (this: unknown, descriptor: { entries: Entry[] }) {
    for (const entry of descriptor.entries) {
      const label = views.get(entry.resource);
      if (label === undefined || bound.length >= 50000) continue;
      const before = descriptor.entries.find((other) => other.binding === entry.binding - 1);
      bound.push({ label, sampler: before === undefined ? null : (samplers.get(before.resource) ?? null) });
    }
    return createBindGroup.call(this, descriptor);
  };
}

/** What {@link recordBoundTextures} recorded on `page` (empty on WebGL2). */
export async function boundTextures(page: Page): Promise<BoundTexture[]> {
  return page.evaluate(() => (globalThis as { __boundTextures?: BoundTexture[] }).__boundTextures ?? []);
}
