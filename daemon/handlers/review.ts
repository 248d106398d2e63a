import { reviewAdd, reviewList } from '../../catalog/domains/review.js';
import type { Registry } from '../exec/registry.js';

/** The task is always named explicitly (taskId); there is no ambient default thread. */
export function registerReviewHandlers(r: Registry): void {
  r.registerJSON(reviewAdd, (input, ctx) => ctx.server.addReview(input));
  r.registerJSON(reviewList, (input, ctx) => ctx.server.listReviews(input));
}
