/** A call's output as DOM: text as preformatted text, images as images, files by name. */
import type { ToolOutput } from '../../../index.js';
import { element } from './dom.js';

/** Longest text shown in a row; the rest is cut with a note, the full text is in the title. */
const MAX_TEXT = 2000;

/** Image URLs the page loads: inline data, or the web. */
function showable(url: string | undefined): url is string {
  return url !== undefined && /^(data:image\/|https?:)/i.test(url);
}

function text(value: string): HTMLElement {
  const pre = element(
    'pre',
    'text',
    value.length > MAX_TEXT ? `${value.slice(0, MAX_TEXT)}…` : value,
  );
  if (value.length > MAX_TEXT) pre.title = `${value.length} characters`;
  return pre;
}

/** The elements showing `output`. */
export function renderOutput(output: ToolOutput): HTMLElement[] {
  if (typeof output === 'string') return output === '' ? [] : [text(output)];
  return output.map((part) => {
    switch (part.type) {
      case 'input_text':
        return text(part.text);
      case 'input_image': {
        if (!showable(part.image_url))
          return element('span', 'file', `[image ${part.file_id ?? ''}]`);
        const img = element('img', 'image');
        img.src = part.image_url;
        img.alt = 'image output';
        return img;
      }
      case 'input_file':
        return element(
          'span',
          'file',
          `[file ${part.filename ?? part.file_url ?? part.file_id ?? ''}]`,
        );
      default:
        return element('span', 'file', `[${(part as { type: string }).type}]`);
    }
  });
}
