/**
 * `@tessera-vt/tessera/imagery`: imagery people already have, streamed as virtual textures without
 * baking: Cloud-Optimized GeoTIFF, PMTiles, XYZ / TMS / WMTS tile servers, IIIF and Deep Zoom.
 * Each is an {@link ImageryPyramid}; {@link ImageryTileSource} turns one into the pages of a
 * virtual texture (with borders from neighbouring tiles) for `VirtualTextureSystem.add`.
 * @packageDocumentation
 */

export { HttpClient, type HttpClientCounters, type HttpClientOptions } from '../io/http/http-client';
export type { CogGeoreference } from './cog-georeference';
export {
  type CogDecoderPool,
  CogPyramid,
  type CogPyramidOptions,
  openCogPyramid,
} from './cog-pyramid';
export type { CogRampStop } from './cog-texels';
export {
  type DeepZoomDescriptor,
  type DeepZoomPyramid,
  type DeepZoomPyramidOptions,
  openDeepZoomPyramid,
  parseDeepZoomDescriptor,
} from './deep-zoom-pyramid';
export {
  type IiifImageService,
  type IiifPyramid,
  type IiifPyramidOptions,
  type IiifTileFormat,
  iiifTilePath,
  openIiifPyramid,
  parseIiifInfo,
} from './iiif-pyramid';
export type { ImageryLevel, ImageryPyramid, ImageryPyramidInfo, ImageryTile } from './imagery-pyramid';
export {
  ImageryTileSource,
  type ImageryTileSourceCounters,
  type ImageryTileSourceOptions,
} from './imagery-tile-source';
export {
  openPmtilesPyramid,
  type PmtilesPyramid,
  type PmtilesPyramidOptions,
} from './pmtiles-pyramid';
export { MAX_WEB_MAP_ZOOM, webMapLevels } from './web-map-levels';
export {
  type OpenXyzPyramidOptions,
  openXyzPyramid,
  parseTileJson,
  type TileJsonFields,
  XyzPyramid,
  type XyzPyramidCounters,
  type XyzPyramidOptions,
  xyzPyramid,
} from './xyz-pyramid';
