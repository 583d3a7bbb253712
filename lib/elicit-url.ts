/**
 * A URL question's page, checked where it is asked and shown where it is answered (see
 * {@link ElicitUrlRequest}).
 *
 * @module
 */
import type { ElicitUrlRequest } from './contract.js';

/** The longest URL a question may send a person to. */
const MAX_URL = 2048;

/**
 * Why `url` is not a page a question may send a person to, in one line, or undefined when it is
 * one: an absolute `http:` or `https:` URL of at most 2,048 characters, with no user name or
 * password in it (MCP forbids URLs that carry credentials). Anything else (a `javascript:` or
 * `file:` URL, a relative path, text) is refused where it is asked, and a server's question with
 * one is declined without being shown.
 */
export function elicitUrlProblem(url: unknown): string | undefined {
  if (typeof url !== 'string') return 'the url must be a string';
  if (url.length > MAX_URL) return `the url is ${url.length} characters, past ${MAX_URL}`;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'the url must be an absolute http: or https: URL';
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:')
    return `the url must be http: or https:, not ${parsed.protocol}`;
  if (parsed.username !== '' || parsed.password !== '')
    return 'the url must not carry a user name or password';
  return undefined;
}

/** What a view shows of a URL question's page beside the full URL. */
export interface ElicitUrlView {
  /** The full URL, as asked: shown whole, for the person to examine. */
  readonly url: string;
  /** Its host (with the port, if any), to be shown apart: where the person is really sent. */
  readonly host: string;
  /** Whether the link goes to plain `http:` (not encrypted). */
  readonly insecure: boolean;
  /**
   * Whether the host is spelt in punycode (a label starting `xn--`): letters from other scripts
   * may make it look like another host, so a view warns.
   */
  readonly punycode: boolean;
}

/**
 * What a terminal, a web page or an Angular component shows of `request`'s page: the full URL,
 * its host set apart (MCP asks clients to show both and to warn of punycode hosts). Throws a
 * TypeError for a URL {@link elicitUrlProblem} refuses, which `context.elicit` never passes on.
 */
export function elicitUrlView(request: Pick<ElicitUrlRequest, 'url'>): ElicitUrlView {
  const problem = elicitUrlProblem(request.url);
  if (problem !== undefined) throw new TypeError(`elicit: ${problem}`);
  const parsed = new URL(request.url);
  return {
    url: request.url,
    host: parsed.host,
    insecure: parsed.protocol === 'http:',
    punycode: parsed.hostname.split('.').some((label) => label.startsWith('xn--')),
  };
}
