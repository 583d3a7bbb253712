/**
 * Just enough of a browser document for the web page's render modules to run under Node: elements
 * with children, text, attributes, dataset, style and form properties, and text nodes. A negative
 * `minLength` or `maxLength` throws, as the HTML standard has an input do. `installPageDom()`
 * puts it in `globalThis.document` and returns a function that removes it.
 */

/** A text node. */
export class FakeText {
  parentElement: FakeElement | null = null;
  constructor(public textContent: string) {}
}

/** An element. */
export class FakeElement {
  readonly children: (FakeElement | FakeText)[] = [];
  readonly attributes = new Map<string, string>();
  readonly dataset: Record<string, string> = {};
  readonly style: Record<string, string> = {};
  parentElement: FakeElement | null = null;
  className = '';
  hidden = false;
  disabled = false;
  type = '';
  name = '';
  value = '';
  checked = false;
  selected = false;
  required = false;
  step = '';
  min = '';
  max = '';
  private lengths: { min?: number; max?: number } = {};

  constructor(readonly tagName: string) {}

  get title(): string {
    return this.attributes.get('title') ?? '';
  }
  set title(value: string) {
    this.attributes.set('title', value);
  }
  get minLength(): number {
    return this.lengths.min ?? -1;
  }
  set minLength(n: number) {
    if (n < 0) throw new RangeError(`IndexSizeError: The value provided (${n}) is negative.`);
    this.lengths.min = n;
  }
  get maxLength(): number {
    return this.lengths.max ?? -1;
  }
  set maxLength(n: number) {
    if (n < 0) throw new RangeError(`IndexSizeError: The value provided (${n}) is negative.`);
    this.lengths.max = n;
  }
  get textContent(): string {
    return this.children.map((child) => child.textContent).join('');
  }
  set textContent(text: string) {
    this.replaceChildren(new FakeText(text));
  }

  append(...nodes: (FakeElement | FakeText)[]): void {
    for (const node of nodes) {
      if (node.parentElement !== null) {
        const siblings = node.parentElement.children;
        siblings.splice(siblings.indexOf(node), 1);
      }
      node.parentElement = this;
      this.children.push(node);
    }
  }
  replaceChildren(...nodes: (FakeElement | FakeText)[]): void {
    for (const child of this.children.splice(0)) child.parentElement = null;
    this.append(...nodes);
  }
  setAttribute(name: string, value: string): void {
    this.attributes.set(name, value);
  }
  getAttribute(name: string): string | null {
    return this.attributes.get(name) ?? null;
  }
  hasAttribute(name: string): boolean {
    return this.attributes.has(name);
  }
  removeAttribute(name: string): void {
    this.attributes.delete(name);
  }
  /** Only lists of `.class` and tag selectors: `.tick`, `input, select`. */
  querySelectorAll(selector: string): FakeElement[] {
    const matches = selector.split(',').map((part) => {
      const one = part.trim();
      return one.startsWith('.')
        ? (el: FakeElement) => el.className.split(' ').includes(one.slice(1))
        : (el: FakeElement) => el.tagName === one;
    });
    return this.descendants().filter((el) => matches.some((match) => match(el)));
  }
  /** Every element below this one, depth first. */
  descendants(): FakeElement[] {
    return this.children.flatMap((child) =>
      child instanceof FakeElement ? [child, ...child.descendants()] : [],
    );
  }
}

/** Installs a fake `document`; returns the function that removes it. */
export function installPageDom(): () => void {
  const g = globalThis as { document?: unknown };
  const before = g.document;
  g.document = {
    createElement: (tag: string) => new FakeElement(tag),
    createTextNode: (text: string) => new FakeText(text),
  };
  return () => {
    g.document = before;
  };
}

/**
 * Everything a person can read of `root`: each text node, each tooltip, each input's value.
 */
export function readableText(root: FakeElement): string[] {
  const out: string[] = [];
  const walk = (node: FakeElement | FakeText): void => {
    if (node instanceof FakeText) {
      out.push(node.textContent);
      return;
    }
    if (node.hasAttribute('title')) out.push(node.title);
    if (node.tagName === 'input' && node.value !== '') out.push(node.value);
    node.children.forEach(walk);
  };
  walk(root);
  return out.filter((text) => text !== '');
}
