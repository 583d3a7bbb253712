/**
 * A call refused until the person visits pages (-32042): the pages it names, and how many
 * times such a call is sent again.
 *
 * @module
 */
import { elicitUrlProblem } from '../../lib/elicit-url.js';
import type { ElicitResult, ElicitUrlRequest } from '../../lib/contract.js';

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

/**
 * Asks each of `pages` in turn through `ask` (the call's question, undefined once it ended):
 * 'visited' when every one was accepted, the page refused (declined or dismissed) and why, or
 * undefined when the call ended meanwhile.
 */
export async function visitPages(
  pages: readonly ElicitUrlRequest[],
  ask: (page: ElicitUrlRequest) => Promise<ElicitResult> | undefined,
): Promise<'visited' | { page: ElicitUrlRequest; why: string } | undefined> {
  for (const page of pages) {
    const asked = ask(page);
    if (asked === undefined) return undefined;
    const answer = await asked.catch(() => undefined);
    if (answer?.action !== 'accept')
      return { page, why: answer?.action === 'decline' ? 'declined' : 'not visited' };
  }
  return 'visited';
}
