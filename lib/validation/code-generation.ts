/**
 * Whether this JavaScript environment lets code be generated from strings (`new Function`), which
 * ajv needs. A Content-Security-Policy without `'unsafe-eval'` forbids it, and so does Node's
 * `--disallow-code-generation-from-strings`.
 *
 * @module
 */

let allowed: boolean | undefined;

/**
 * True when `new Function` works here; asked once, on first use, and remembered. In a browser
 * page under such a policy the attempt itself is reported as a violation, which is why
 * `tool()` never asks (it always interprets).
 */
export function codeGenerationAllowed(): boolean {
  if (allowed === undefined) {
    try {
      allowed = typeof new Function('return 1') === 'function';
    } catch {
      allowed = false;
    }
  }
  return allowed;
}
