/** Messages between {@link WorkerProceduralTileSource} and a procedural-generation worker. */

import { ProceduralWorld, type ProceduralWorldOptions } from './procedural-world';

/** Source -> worker: generate page (`x`, `y`) of mip `mip`. */
export interface GenerateRequest {
  /** The message kind. */
  type: 'generate';
  /** Job id, echoed in the reply. */
  id: number;
  /** The world to generate from (built once per distinct options in the worker). */
  options: ProceduralWorldOptions;
  /** Mip level of the page. */
  mip: number;
  /** Page column at that mip. */
  x: number;
  /** Page row at that mip. */
  y: number;
}

/** Worker -> source: the tile's layers (buffers transferred). */
export interface GenerateReply {
  /** The message kind. */
  type: 'generated';
  /** The request's job id. */
  id: number;
  /** The tile's albedo and normal layers, rgba8 (buffers transferred). */
  layers: Uint8Array[];
}

let cachedKey = '';
let cachedWorld: ProceduralWorld | undefined;

/** The worker side: generates one tile (the world is built once per distinct options). */
export function handleGenerateRequest(request: GenerateRequest): {
  reply: GenerateReply;
  transfer: ArrayBuffer[];
} {
  const key = JSON.stringify(request.options);
  if (cachedWorld === undefined || key !== cachedKey) {
    cachedWorld = new ProceduralWorld(request.options);
    cachedKey = key;
  }
  const { tileSize } = cachedWorld.info;
  const albedo = new Uint8Array(tileSize * tileSize * 4);
  const normal = new Uint8Array(tileSize * tileSize * 4);
  cachedWorld.generateTile(request.mip, request.x, request.y, albedo, normal);
  return {
    reply: { type: 'generated', id: request.id, layers: [albedo, normal] },
    transfer: [albedo.buffer, normal.buffer],
  };
}
