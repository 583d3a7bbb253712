/** Small DOM helpers that touch the document only when a value changes (the page redraws often). */

/** Creates an element with a class and, optionally, text. */
export function element<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  className = '',
  text = '',
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  if (className !== '') el.className = className;
  if (text !== '') el.textContent = text;
  return el;
}

/** Sets the text, if different. */
export function setText(el: HTMLElement, text: string): void {
  if (el.textContent !== text) el.textContent = text;
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
