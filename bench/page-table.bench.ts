import { BLOCK_BYTES } from '../src/core/vt/page-table/page-table-blocks';
import { flyOverPath } from '../src/sim/camera-paths';
import { FrameSimulator } from '../src/sim/frame-simulator';

/**
 * Sparse page-table GPU bytes (issue 17): a virtual texture of `pages`² pages after a 1080p
 * fly-over in the simulator (anisotropic mip rule, feedback at 1/8, the streamer's mip bias on),
 * read at the end of the path once the view has settled. The simulator's table grows its atlas by
 * doubling exactly as the binding does, so `gpuBytes` is what the GPU would hold (indirection plus
 * atlas at its capacity); `_used` counts only the stored blocks. The dense table it replaced held
 * 4 bytes per page at every mip (`_dense`). Three VTs at once: three textures on three paths,
 * each with its own pool, summed (every page table is independent of the others).
 */
interface TableFigures {
  gpuBytes: number;
  usedBytes: number;
  denseBytes: number;
  blocks: number;
  resident: number;
}

async function settleFlyOver(pages: number, seed: number, poolSlots: number): Promise<TableFigures> {
  const world = pages * 120;
  const path = flyOverPath({
    worldWidth: world,
    worldDepth: world,
    altitude: 150,
    seed,
    frames: 480,
    speed: 6,
  });
  const sim = new FrameSimulator({
    terrain: { widthPages: pages, heightPages: pages },
    path,
    poolSlots,
    recordTrace: false,
  });
  // The path, then 60 frames standing at its end (settling).
  await sim.run();
  const table = sim.pageTable;
  const { layout } = table;
  let entries = 0;
  for (let m = 0; m < layout.mipCount; m++) entries += layout.mipWidths[m] * layout.mipHeights[m];
  const figures = {
    gpuBytes: table.gpuBytes,
    usedBytes: table.geometry.indirectionBytes + table.usedBlocks * BLOCK_BYTES,
    denseBytes: entries * 4,
    blocks: table.usedBlocks,
    resident: table.residentCount,
  };
  sim.dispose();
  return figures;
}

export default {
  name: 'page-table',
  async run(): Promise<Record<string, number>> {
    const out: Record<string, number> = {};
    const poolSlots = 2048;
    for (const pages of [1024, 4096]) {
      const f = await settleFlyOver(pages, 31, poolSlots);
      out[`vt.page_table_bytes.${pages}p`] = f.gpuBytes;
      out[`vt.page_table_bytes.${pages}p_used`] = f.usedBytes;
      out[`vt.page_table_bytes.${pages}p_dense`] = f.denseBytes;
      out[`vt.page_table_blocks.${pages}p`] = f.blocks;
      out[`vt.page_table_resident_pages.${pages}p`] = f.resident;
    }
    let three = 0;
    let threeDense = 0;
    for (const [pages, seed] of [
      [4096, 41],
      [4096, 42],
      [1024, 43],
    ] as const) {
      const f = await settleFlyOver(pages, seed, poolSlots);
      three += f.gpuBytes;
      threeDense += f.denseBytes;
    }
    out['vt.page_table_bytes.three_vts'] = three;
    out['vt.page_table_bytes.three_vts_dense'] = threeDense;
    return out;
  },
};
