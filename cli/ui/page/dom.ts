/**
 * Small DOM helpers that touch the document only when a value changes (the page redraws often).
 * Every text they put on the page is {@link shown}: what tools and peers send (names, progress,
 * results, errors, questions) shows as on the terminal, its control and bidi characters escaped.
 */
import { visible } from '../../../lib/visible.js';

/**
 * Text as the page shows it: a control or invisible format character (a bidi override such as
 * U+202E, which would show the text around it reversed) written as its escape, `\u202e`, by the
 * rule the terminal views follow (lib/visible.ts); line breaks and tabs are kept, a CRLF as a
 * line break.
 */
export function shown(text: string): string {
  return visible(text.replace(/\r\n/g, '\n'), '\n\t');
}

/** Creates an element with a class and, optionally, text ({@link shown}). */
export function element<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  className = '',
  text = '',
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  if (className !== '') el.className = className;
  if (text !== '') el.textContent = shown(text);
  return el;
}

/** A text node of `text` ({@link shown}). */
export function textNode(text: string): Text {
  return document.createTextNode(shown(text));
}

/** Sets the text ({@link shown}), if different. */
export function setText(el: HTMLElement, text: string): void {
  const safe = shown(text);
  if (el.textContent !== safe) el.textContent = safe;
}

/** Sets the tooltip ({@link shown}), if different; `undefined` removes it. */
export function setTitle(el: Element, text: string | undefined): void {
  setAttr(el, 'title', text === undefined ? undefined : shown(text));
}

/** Sets an attribute, if different; `undefined` removes it. */
export function setAttr(el: Element, name: string, value: string | undefined): void {
  if (value === undefined) {
    if (el.hasAttribute(name)) el.removeAttribute(name);
  } else if (el.getAttribute(name) !== value) el.setAttribute(name, value);
}

/** Sets an inline style property, if different. */
export function setStyle(el: HTMLElement, name: 'left' | 'width', value: string): void {
  if (el.style[name] !== value) el.style[name] = value;
}

/** The one element matching `selector` in the document; throws when the page lacks it. */
export function required<T extends Element = HTMLElement>(selector: string): T {
  const el = document.querySelector<T>(selector);
  if (el === null) throw new Error(`the page has no ${selector}`);
  return el;
}
