/**
 * A call refused until the person visits pages (-32042): the pages it names, and how many
 * times such a call is sent again.
 *
 * @module
 */
import { elicitUrlProblem } from '../../lib/elicit-url.js';
import type { ElicitUrlRequest } from '../../lib/contract.js';

/** How many times a call refused until a page is visited (-32042) is sent again. */
export const MAX_PAGE_ROUNDS = 3;

/** MCP 2025-11-25's error refusing a request until the person has visited pages. */
const URL_ELICITATION_REQUIRED = -32042;

/**
 * The pages a -32042 refusal asks the person to visit, as URL questions; undefined when `err` is
 * not one, or names no page a question may send a person to (see `elicitUrlProblem`).
 */
export function pagesOf(err: unknown): ElicitUrlRequest[] | undefined {
  const { code, data } = (err ?? {}) as { code?: unknown; data?: unknown };
  if (code !== URL_ELICITATION_REQUIRED) return undefined;
  const elicitations = (data as { elicitations?: unknown } | null | undefined)?.elicitations;
  if (!Array.isArray(elicitations) || elicitations.length === 0 || elicitations.length > 16)
    return undefined;
  const pages: ElicitUrlRequest[] = [];
  for (const e of elicitations as unknown[]) {
    const { mode, message, url } = (e ?? {}) as Record<string, unknown>;
    if (mode !== 'url' || typeof message !== 'string' || elicitUrlProblem(url) !== undefined)
      return undefined;
    pages.push({ mode: 'url', message, url: url as string });
  }
  return pages;
}
