import { TesseraError } from '../../errors';
import { pageMip, pageVt, pageX, pageY } from '../page-id';

/** Called when a page is marked failed (its fallback stays). */
export type PageFailureHandler = (pageId: number, error: TesseraError) => void;

/** What a page's permanent failure reports: `tile-failed-permanently`, the last load's error as `cause`. */
export function permanentFailure(pageId: number, attempts: number, cause: unknown): TesseraError {
  const page = `page vt=${pageVt(pageId)} mip=${pageMip(pageId)} x=${pageX(pageId)} y=${pageY(pageId)}`;
  return new TesseraError('tile-failed-permanently', `${page} failed after ${attempts} attempt(s)`, {
    cause,
  });
}
