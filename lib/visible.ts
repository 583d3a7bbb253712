/**
 * Text from tools and servers made safe for a terminal: a control character (an escape sequence's
 * ESC or CSI, BEL, a backspace, a carriage return) or an invisible format character (a bidi
 * override) is shown as its escape, `\x1b` or `\u202e`, instead of reaching the terminal, where it
 * could set the clipboard (OSC 52), retitle the window, erase lines or move the cursor. The web
 * page shows text by the same rule (see cli/ui/page/dom.ts), where a bidi override would show the
 * text around it reversed: this module imports nothing, so the page bundles it.
 *
 * @module
 */

// C0 and C1 controls, DEL, the format characters (bidi, zero-width) and the line separators.
const UNSAFE = /[\p{Cc}\p{Cf}\u2028\u2029]/gu;

// The same, less the C0 controls and space characters: JSON.stringify escapes those itself, inside
// strings, and any left in its output are the indentation's.
const RAW_IN_JSON = /[\x7f-\x9f\p{Cf}\u2028\u2029]/gu;

function escape(char: string): string {
  const code = char.codePointAt(0)!;
  if (code <= 0xff) return `\\x${code.toString(16).padStart(2, '0')}`;
  return code <= 0xffff ? `\\u${code.toString(16).padStart(4, '0')}` : `\\u{${code.toString(16)}}`;
}

/** Each UTF-16 unit of `char` as a JSON `\u` escape. */
function jsonEscape(char: string): string {
  let out = '';
  for (let i = 0; i < char.length; i++)
    out += `\\u${char.charCodeAt(i).toString(16).padStart(4, '0')}`;
  return out;
}

/**
 * `text` with every control and format character written as its escape; the characters in
 * `keep` (say "\n" for a view that shows several lines) are left as they are.
 */
export function visible(text: string, keep = ''): string {
  return text.replace(UNSAFE, (char) => (keep.includes(char) ? char : escape(char)));
}

/**
 * `JSON.stringify(value, null, indent)`, with the characters JSON leaves raw that a terminal
 * acts on (DEL, the C1 controls such as CSI, bidi overrides, line separators) written as `\u`
 * escapes: the same JSON value, safe to print.
 */
export function terminalJson(value: unknown, indent?: number): string {
  return JSON.stringify(value, null, indent).replace(RAW_IN_JSON, jsonEscape);
}
