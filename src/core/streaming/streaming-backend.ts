/**
 * What the renderer binding supplies to the mip streaming planner. Textures are identified by the
 * integer ids of {@link ManagedTextureRegistry}. Level ranges always run to the coarsest level:
 * a chain `firstMip .. fullMipCount - 1`.
 */
export interface StreamingBackend {
  /**
   * Create a GPU texture holding levels `firstMip .. firstMip + mipCount - 1` of texture `textureId`
   * and fill it (upload, or copy from the chain it replaces). The chain it replaces stays bound and
   * alive until then. Report the outcome with `MipStreamingPlanner.completeLoad`, synchronously or later.
   */
  allocate(textureId: number, firstMip: number, mipCount: number): void;
  /** Destroy the chain `firstMip ..` of `textureId`, which is no longer bound. */
  free(textureId: number, firstMip: number, mipCount: number): void;
  /**
   * Texture `textureId` was released: swap the placeholder into every material using it, then
   * destroy all its GPU textures (so no bind group keeps a destroyed texture).
   */
  release(textureId: number): void;
}
